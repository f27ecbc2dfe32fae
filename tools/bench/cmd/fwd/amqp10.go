package main

import (
	"context"
	"errors"
	"fmt"

	amqp "github.com/Azure/go-amqp"
)

// amqp10ToAMQP10 is the plain go-amqp forwarder: on one connection, a
// receiver on /amq/queue/<src> with o.window credit and a sender to
// /amq/queue/<dst>, each on a session of its own. Each message is sent as
// it arrives (many in flight); a goroutine waits for the outcomes in
// order, accepts each source message after the target accepted its copy,
// and gives its credit back (go-amqp's automatic credit stalls on
// RabbitMQ 3.x). Credentials in o.amqpURL are sent with SASL PLAIN.
func amqp10ToAMQP10(ctx context.Context, o options, ready func()) error {
	conn, err := amqp.Dial(ctx, o.amqpURL, nil)
	if err != nil {
		return err
	}
	defer conn.Close()
	rs, err := conn.NewSession(ctx, nil)
	if err != nil {
		return err
	}
	ss, err := conn.NewSession(ctx, nil)
	if err != nil {
		return err
	}
	rcv, err := rs.NewReceiver(ctx, "/amq/queue/"+o.src, &amqp.ReceiverOptions{Credit: -1})
	if err != nil {
		return err
	}
	if err := rcv.IssueCredit(uint32(o.window)); err != nil {
		return err
	}
	snd, err := ss.NewSender(ctx, "/amq/queue/"+o.dst, nil)
	if err != nil {
		return err
	}
	ready()
	type job struct {
		m *amqp.Message
		r amqp.SendReceipt
	}
	jobs := make(chan job, o.window)
	acked := make(chan error, 1)
	go func() {
		acked <- func() error {
			for j := range jobs {
				st, err := j.r.Wait(ctx)
				if err != nil {
					return err
				}
				if _, ok := st.(*amqp.StateAccepted); !ok {
					return fmt.Errorf("target outcome %T, want accepted", st)
				}
				if err := rcv.AcceptMessage(ctx, j.m); err != nil {
					return err
				}
				if err := rcv.IssueCredit(1); err != nil {
					return err
				}
			}
			return nil
		}()
	}()
	var ferr error
	for {
		m, err := rcv.Receive(ctx, nil)
		if err != nil {
			ferr = err
			break
		}
		r, err := snd.SendWithReceipt(ctx, &amqp.Message{Data: m.Data, Header: m.Header, Properties: m.Properties,
			ApplicationProperties: m.ApplicationProperties}, nil)
		if err != nil {
			ferr = err
			break
		}
		select {
		case jobs <- job{m, r}:
		case err := <-acked:
			ferr = errors.Join(err, errors.New("acknowledger stopped"))
			acked <- err
		}
		if ferr != nil {
			break
		}
	}
	close(jobs)
	return errors.Join(ferr, <-acked)
}
