package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// target is the publishing side every reference forwarder shares: one
// channel in confirm mode.
type target struct {
	ch *amqp.Channel
	o  options
}

func openTarget(conn *amqp.Connection, o options) (*target, error) {
	ch, err := conn.Channel()
	if err != nil {
		return nil, err
	}
	if err := ch.Confirm(false); err != nil {
		return nil, err
	}
	return &target{ch: ch, o: o}, nil
}

// publish sends body (and the source's headers and message ID, as a
// forwarder that keeps them would) and returns its confirmation.
func (t *target) publish(ctx context.Context, body []byte, headers amqp.Table, messageID string) (*amqp.DeferredConfirmation, error) {
	p := amqp.Publishing{DeliveryMode: amqp.Persistent, Body: body, Headers: headers, MessageId: messageID}
	if t.o.sendsIDs() {
		if p.MessageId == "" {
			p.MessageId = newID()
		}
		p.Timestamp = time.Now()
	}
	if t.o.sendsHeaders() {
		h := make(amqp.Table, len(headers)+2)
		for k, v := range headers {
			h[k] = v
		}
		id := p.MessageId
		if id == "" {
			id = newID()
		}
		// A message that starts a conversation is correlated by its own ID.
		h["x-bridge.correlation-id"] = id
		h["gobridge.subject"] = ""
		p.Headers = h
	}
	return t.ch.PublishWithDeferredConfirmWithContext(ctx, t.o.exchange, t.o.key, t.o.mandatory, false, p)
}

// waitConfirm waits for one confirmation; a nack is an error (the source
// message then stays unacknowledged and comes back).
func waitConfirm(ctx context.Context, dc *amqp.DeferredConfirmation) error {
	ok, err := dc.WaitContext(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("publish %d nacked", dc.DeliveryTag)
	}
	return nil
}

// newID is a random 36-character ID shaped like the bridge's.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	s := hex.EncodeToString(b[:])
	return s[0:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:32]
}
