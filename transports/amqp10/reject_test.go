package amqp10

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// countingDLQ counts the entries the bridge would write to its own DLQ.
type countingDLQ struct{ n atomic.Int32 }

func (d *countingDLQ) Write(context.Context, ports.DLQEntry) error { d.n.Add(1); return nil }

// refusing fails every message permanently.
type refusing struct{}

func (refusing) Send(context.Context, ports.OutboundMessage) error { return fault.ErrForbidden }

// TestRejectedGoesToTheBrokersDeadLetterQueue: with on_permanent:
// rejected, a message the route gives up on is disposed rejected, so
// RabbitMQ dead-letters it through the queue's own dead-letter exchange,
// and the bridge's DLQ stays empty.
func TestRejectedGoesToTheBrokersDeadLetterQueue(t *testing.T) {
	p := rabbitPeer(t)
	q := uniqueName(t)
	dead := q + ".dead"
	conn, err := amqp091.Dial(p.url091)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ch.QueueDeclare(dead, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ch.QueueDeclare(q, true, false, false, false, amqp091.Table{
		"x-dead-letter-exchange": "", "x-dead-letter-routing-key": dead}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = ch.QueueDelete(q, false, false, false)
		_, _ = ch.QueueDelete(dead, false, false, false)
	})

	sess := newTestSession(t, p)
	recv, err := NewReceiver(sess, ReceiverConfig{Address: "/amq/queue/" + q, Retry: RetryReleased, OnPermanent: PermanentRejected})
	if err != nil {
		t.Fatal(err)
	}
	dlq := &countingDLQ{}
	rt, err := runtime.New([]runtime.Route{{ID: "rej", ReceiverID: "src", Receiver: recv,
		Bindings: []runtime.Binding{{ID: "dst", Sender: refusing{}}}}},
		runtime.Options{DLQ: dlq, StopTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(runCtx) }()
	if err := newRawClient(t, p).publish(ctx, "/amq/queue/"+q, messaging.NewEnvelope("orders.created", []byte("bad"))); err != nil {
		t.Fatal(err)
	}
	waitDepth(ctx, t, p.url091, dead, func(d int) bool { return d == 1 })
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := dlq.n.Load(); n != 0 {
		t.Errorf("the bridge's DLQ got %d entries; the broker should have dead-lettered the message", n)
	}
	if d := queueDepth(t, p.url091, q); d != 0 {
		t.Errorf("the source queue still holds %d messages", d)
	}
}

func TestOnPermanentIsValidated(t *testing.T) {
	err := ReceiverConfig{Address: "/amq/queue/x", OnPermanent: "bounce"}.WithDefaults().Validate()
	if err == nil || !strings.Contains(err.Error(), "on_permanent") {
		t.Errorf("Validate() = %v, want a problem naming on_permanent", err)
	}
	if got := (ReceiverConfig{}).WithDefaults().OnPermanent; got != PermanentDLQ {
		t.Errorf("on_permanent defaults to %q, want dlq", got)
	}
}
