package main

import (
	"context"
	"errors"

	amqp "github.com/rabbitmq/amqp091-go"
)

// amqpToAMQP consumes o.src with prefetch o.window and forwards to
// o.exchange; a delivery is acked after its publish was confirmed.
func amqpToAMQP(ctx context.Context, o options, ready func()) error {
	in, err := amqp.Dial(o.amqpURL)
	if err != nil {
		return err
	}
	defer in.Close()
	out := in
	if o.conns == 2 {
		if out, err = amqp.Dial(o.amqpURL); err != nil {
			return err
		}
		defer out.Close()
	}
	cch, err := in.Channel()
	if err != nil {
		return err
	}
	if err := cch.Qos(o.window, 0, false); err != nil {
		return err
	}
	tgt, err := openTarget(out, o)
	if err != nil {
		return err
	}
	ds, err := cch.Consume(o.src, "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	ready()

	type job struct {
		dc  *amqp.DeferredConfirmation
		tag uint64
	}
	jobs := make(chan job, o.window)
	acked := make(chan error, 1)
	go func() {
		acked <- func() error {
			for j := range jobs {
				if err := waitConfirm(ctx, j.dc); err != nil {
					return err
				}
				last := j.tag
				if o.multiAck {
					// Every job already queued is older than any still to
					// come: wait for their confirms and ack them all at once.
				more:
					for {
						select {
						case n, ok := <-jobs:
							if !ok {
								break more
							}
							if err := waitConfirm(ctx, n.dc); err != nil {
								return err
							}
							last = n.tag
						default:
							break more
						}
					}
				}
				if err := cch.Ack(last, o.multiAck); err != nil {
					return err
				}
			}
			return nil
		}()
	}()
	var ferr error
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case err := <-acked:
			ferr = err
			acked <- err
			break loop
		case d, ok := <-ds:
			if !ok {
				ferr = errors.New("consumer channel closed")
				break loop
			}
			dc, err := tgt.publish(ctx, d.Body, d.Headers, d.MessageId)
			if err != nil {
				ferr = err
				break loop
			}
			jobs <- job{dc, d.DeliveryTag}
		}
	}
	close(jobs)
	return errors.Join(ferr, <-acked)
}
