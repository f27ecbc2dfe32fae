package main

import (
	"context"
	"errors"

	"github.com/eclipse/paho.golang/paho"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/tools/bench/internal/mqttio"
)

// mqttToAMQP resumes the MQTT session o.clientID (subscribed to o.topic
// at QoS 1) with Receive Maximum o.window and forwards every message to
// o.exchange; the PUBACK is sent after the publish was confirmed (paho
// keeps PUBACKs in arrival order).
func mqttToAMQP(ctx context.Context, o options, ready func()) error {
	out, err := amqp.Dial(o.amqpURL)
	if err != nil {
		return err
	}
	defer out.Close()
	tgt, err := openTarget(out, o)
	if err != nil {
		return err
	}
	type job struct {
		dc *amqp.DeferredConfirmation
		pb *paho.Publish
	}
	jobs := make(chan job, o.window)
	failed := make(chan error, 2)
	fail := func(err error) {
		select {
		case failed <- err:
		default:
		}
	}
	onPublish := func(pr paho.PublishReceived) (bool, error) {
		var h amqp.Table
		if o.sendsTopic() {
			h = amqp.Table{"mqtt.topic": pr.Packet.Topic} // the bridge's receiver adds it
		}
		dc, err := tgt.publish(ctx, pr.Packet.Payload, h, "")
		if err != nil {
			fail(err)
			return true, err
		}
		select {
		case jobs <- job{dc, pr.Packet}:
		case <-ctx.Done():
		}
		return true, nil
	}
	c, err := mqttio.Connect(ctx, o.mqttAddr, o.clientID, false, o.expiry, o.window, onPublish)
	if err != nil {
		return err
	}
	if _, err := c.Subscribe(ctx, &paho.Subscribe{Subscriptions: []paho.SubscribeOptions{{Topic: o.topic, QoS: 1}}}); err != nil {
		return err
	}
	ready()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case j := <-jobs:
				if err := waitConfirm(ctx, j.dc); err != nil {
					fail(err)
					return
				}
				if err := c.Ack(j.pb); err != nil {
					fail(err)
					return
				}
			}
		}
	}()
	select {
	case <-ctx.Done():
		_ = c.Disconnect(&paho.Disconnect{ReasonCode: 0})
		return nil
	case <-c.Done():
		return errors.New("MQTT connection lost")
	case err := <-failed:
		return err
	}
}
