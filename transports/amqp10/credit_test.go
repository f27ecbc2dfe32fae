package amqp10

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestCreditNeverExceedsMaxInFlight holds every delivery unsettled and
// checks that the peer hands over exactly max_in_flight of them, and one
// more for each one settled, down to a window of 1.
func TestCreditNeverExceedsMaxInFlight(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		t.Run(fmt.Sprintf("max_in_flight=%d", n), func(t *testing.T) { testCreditWindow(t, n) })
	}
}

func testCreditWindow(t *testing.T, n int) {
	const published, rounds = 20, 4
	p := rabbitPeer(t)
	q := p.queue(t)
	raw := newRawClient(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range published {
		if err := raw.publish(ctx, q, messaging.NewEnvelope("credit", fmt.Appendf(nil, "m%02d", i))); err != nil {
			t.Fatalf("publish: %v", err)
		}
	}
	r, err := NewReceiver(newTestSession(t, p), ReceiverConfig{Address: q}, WithMaxInFlight(n))
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan ports.Delivery, published)
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() {
		ran <- r.Run(runCtx, func(_ context.Context, d ports.Delivery) error { got <- d; return nil })
	}()
	defer func() { stop(); <-ran }()

	var held []ports.Delivery
	take := func(k int) {
		t.Helper()
		for range k {
			select {
			case d := <-got:
				held = append(held, d)
			case <-ctx.Done():
				t.Fatalf("only %d deliveries arrived", len(held))
			}
		}
	}
	quiet := func() {
		t.Helper()
		select {
		case <-got:
			t.Fatalf("a delivery beyond the credit arrived while %d were unsettled (max_in_flight %d)", len(held), n)
		case <-time.After(300 * time.Millisecond):
		}
	}
	take(n)
	quiet()
	// Settle one at a time: exactly one more arrives each time.
	for range rounds {
		if err := held[0].Ack(ctx); err != nil {
			t.Fatalf("Ack: %v", err)
		}
		held = held[1:]
		take(1)
		quiet()
	}
	for _, d := range held {
		if err := d.Ack(ctx); err != nil {
			t.Fatalf("Ack: %v", err)
		}
	}
}

// TestCreditRefillsWhenSettledConcurrently settles every delivery on a
// goroutine of its own, as the runtime's workers do: every message must
// arrive. (go-amqp's automatic credit stalled here after twice the credit
// against RabbitMQ 3.10.)
func TestCreditRefillsWhenSettledConcurrently(t *testing.T) {
	const n, published = 50, 300
	p := rabbitPeer(t)
	q := p.queue(t)
	raw := newRawClient(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range published {
		if err := raw.publish(ctx, q, messaging.NewEnvelope("refill", fmt.Appendf(nil, "m%03d", i))); err != nil {
			t.Fatalf("publish: %v", err)
		}
	}
	r, err := NewReceiver(newTestSession(t, p), ReceiverConfig{Address: q}, WithMaxInFlight(n))
	if err != nil {
		t.Fatal(err)
	}
	acked := make(chan error, published)
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() {
		ran <- r.Run(runCtx, func(ctx context.Context, d ports.Delivery) error {
			go func() { acked <- d.Ack(ctx) }()
			return nil
		})
	}()
	defer func() { stop(); <-ran }()
	for i := range published {
		select {
		case err := <-acked:
			if err != nil {
				t.Fatalf("Ack: %v", err)
			}
		case <-ctx.Done():
			t.Fatalf("only %d of %d messages arrived", i, published)
		}
	}
}
