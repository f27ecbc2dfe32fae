package amqp091

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestDelayedRetryWithEndedContextHandsTheMessageBack: a delayed retry
// whose context has ended (the runtime's stop deadline passed) returns at
// once, publishes no copy to the wait queue, and hands the message back to
// the queue.
func TestDelayedRetryWithEndedContextHandsTheMessageBack(t *testing.T) {
	cfg := ReceiverConfig{Retry: RetryConfig{Delays: []time.Duration{50 * time.Millisecond}}}
	recv, q := receiverWithOneMessage(t, cfg, WithName("ended-in"))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	got := make(chan ports.Delivery, 2)
	rctx, stop := context.WithCancel(ctx)
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		_ = recv.Run(rctx, func(_ context.Context, d ports.Delivery) error { got <- d; return nil })
	}()
	defer func() { stop(); <-runDone }()
	var d ports.Delivery
	select {
	case d = <-got:
	case <-ctx.Done():
		t.Fatal("no delivery")
	}
	ended, end := context.WithCancel(ctx)
	end()
	if err := d.Retry(ended, 50*time.Millisecond, nil); err == nil {
		t.Error("Retry under an ended context reported success")
	}
	select {
	case d2 := <-got:
		if d2.Envelope().ID != d.Envelope().ID {
			t.Errorf("redelivered %s, want %s", d2.Envelope().ID, d.Envelope().ID)
		}
		if err := d2.Ack(ctx); err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the message was not handed back")
	}
	// A copy would come back through the 50ms wait queue: watch for it
	// over ten times that.
	window := time.NewTimer(500 * time.Millisecond)
	defer window.Stop()
	select {
	case d3 := <-got:
		t.Errorf("message %s came back a second time: a copy was published to the wait queue", d3.Envelope().ID)
		_ = d3.Ack(ctx)
	case <-window.C:
	}
	if n, err := depth(brokerURL(), q); err != nil || n != 0 {
		t.Errorf("queue holds %d (%v), want 0", n, err)
	}
}
