// Package amqp10io is the harness's AMQP 1.0 side, on go-amqp: the load
// generator that preloads a queue with stamped messages and the sink that
// counts what reaches a queue. Against RabbitMQ (its AMQP 1.0 plugin) a
// queue declared over AMQP 0-9-1 is the address /amq/queue/NAME.
package amqp10io

import (
	"context"
	"errors"
	"fmt"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// QueueAddress is RabbitMQ's AMQP 1.0 address of an existing queue.
func QueueAddress(queue string) string { return "/amq/queue/" + queue }

// Dial opens a connection; credentials in url (amqp://user:pass@host:port)
// are sent with SASL PLAIN, else SASL ANONYMOUS is used.
func Dial(ctx context.Context, url string) (*amqp.Conn, error) {
	conn, err := amqp.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("amqp10io: dial: %w", err)
	}
	return conn, nil
}

// Load describes what the load generator publishes.
type Load struct {
	Run    uint64 // stamped into every payload
	N      int    // messages, sequence numbers 0..N-1
	Size   int    // payload bytes
	Rate   int    // messages per second; 0 publishes as fast as the peer accepts
	Window int    // sends awaiting their outcome, per sender (default 500)
	// Publishers is the number of senders, each on a session of its own,
	// sending side by side (default 4), each a stripe of the sequence
	// numbers.
	Publishers int
}

// Publish sends l.N durable stamped messages to address and returns once
// the peer accepted every one.
func Publish(ctx context.Context, url, address string, l Load) error {
	conn, err := Dial(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close()
	return bench.Stripes(ctx, l.Publishers, l.Rate, func(ctx context.Context, pace *bench.Pacer, first, step int) error {
		return publishStripe(ctx, conn, address, l, pace, first, step)
	})
}

// publishStripe sends sequence numbers first, first+step, ... on a
// session of its own, with up to l.Window sends awaiting their outcome.
func publishStripe(ctx context.Context, conn *amqp.Conn, address string, l Load, pace *bench.Pacer, first, step int) error {
	sess, err := conn.NewSession(ctx, nil)
	if err != nil {
		return fmt.Errorf("amqp10io: session: %w", err)
	}
	// The link and session are not closed one by one: RabbitMQ 3.x may
	// never answer a detach. Closing the connection (Publish) ends them.
	snd, err := sess.NewSender(ctx, address, nil)
	if err != nil {
		return fmt.Errorf("amqp10io: sender: %w", err)
	}
	window := l.Window
	if window <= 0 {
		window = 500
	}
	pending := make(chan amqp.SendReceipt, window)
	waited := make(chan error, 1)
	go func() { waited <- waitReceipts(ctx, pending) }()
	var perr error
	for i := first; i < l.N; i += step {
		if err := pace.Wait(ctx, i); err != nil {
			perr = err
			break
		}
		body := bench.Encode(bench.Stamp{Run: l.Run, Seq: uint64(i), Sent: time.Now()}, l.Size)
		r, err := snd.SendWithReceipt(ctx, &amqp.Message{Data: [][]byte{body}, Header: &amqp.MessageHeader{Durable: true}}, nil)
		if err != nil {
			perr = fmt.Errorf("amqp10io: send: %w", err)
			break
		}
		pending <- r
	}
	close(pending)
	return errors.Join(perr, <-waited)
}

// waitReceipts waits for each receipt in turn; after the first failure it
// drains the rest without waiting.
func waitReceipts(ctx context.Context, pending <-chan amqp.SendReceipt) error {
	var first error
	for r := range pending {
		if first != nil {
			continue
		}
		st, err := r.Wait(ctx)
		if err == nil {
			if _, ok := st.(*amqp.StateAccepted); !ok {
				err = fmt.Errorf("amqp10io: outcome %T, want accepted", st)
			}
		}
		first = err
	}
	return first
}
