package amqp091

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// downDLQ refuses every write and counts them.
type downDLQ struct{ writes atomic.Int32 }

func (d *downDLQ) Write(context.Context, ports.DLQEntry) error {
	d.writes.Add(1)
	return fault.ErrUnavailable.WithMessage("DLQ down on purpose")
}

// refusingSender fails every message permanently.
type refusingSender struct{}

func (refusingSender) Send(context.Context, ports.OutboundMessage) error { return fault.ErrForbidden }

// TestDLQOutageWithRetryOffKeepsTheMessageInTheQueue: with retry.mode off
// the receiver cannot hand a message back, and the target refuses it for
// good while the DLQ is down. The message must stay with RabbitMQ (left
// unacknowledged, so it is ready again once the consumer goes) instead of
// being acked and dropped.
func TestDLQOutageWithRetryOffKeepsTheMessageInTheQueue(t *testing.T) {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	q := uniqueName(t, "dlqdown")
	a.deleteOnCleanup([]string{q}, nil)
	sess := newTestSession(t, url, Topology{Queues: []QueueSpec{{Name: q}}})
	recv, err := NewReceiver(sess, ReceiverConfig{Queue: q, Retry: RetryConfig{Mode: RetryOff}}.WithDefaults(), WithName("dlqdown-in"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = recv.Close(context.Background()) })
	dlq := &downDLQ{}
	rt, err := runtime.New([]runtime.Route{{
		ID: "dlqdown", ReceiverID: "dlqdown-in", Receiver: recv,
		Bindings: []runtime.Binding{{ID: "refuses", Sender: refusingSender{}, Address: "x"}},
	}}, runtime.Options{DLQ: dlq, StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(runCtx) }()
	if err := a.publish(ctx, "", q, messaging.NewEnvelope("orders.created", []byte("keep me"))); err != nil {
		t.Fatal(err)
	}
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for dlq.writes.Load() == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the route never tried the DLQ")
		case <-poll.C:
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := recv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// Once the consumer's channel is gone, an unacknowledged message is
	// ready again; an acked one is gone for good.
	for {
		qi, err := a.channel().QueueDeclarePassive(q, true, false, false, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if qi.Messages == 1 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("queue holds %d messages after the stop, want the 1 the DLQ could not take", qi.Messages)
		case <-poll.C:
		}
	}
}
