package amqp10

import (
	"context"
	"fmt"
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

// TestPoisonAmongHealthyMessages runs a route with max_in_flight 1 and 2
// (so the link credit is 1 and 2) over a RabbitMQ queue holding healthy
// messages and one whose every send fails transiently. The poison message
// is retried (released: RabbitMQ 3.10 redelivers it), then, once the
// route's replay attempts are spent, disposed rejected, so RabbitMQ
// dead-letters it through the queue's dead-letter exchange. Every healthy
// message arrives exactly once, the bridge's own DLQ stays empty, and the
// route never holds more deliveries than the credit.
func TestPoisonAmongHealthyMessages(t *testing.T) {
	for _, window := range []int{1, 2} {
		t.Run(fmt.Sprintf("max_in_flight=%d", window), func(t *testing.T) { testPoison(t, window) })
	}
}

func testPoison(t *testing.T, window int) {
	const healthy, attempts = 30, 3
	p := rabbitPeer(t)
	src, dead := declareWithDeadLetters(t, p)
	dst := p.queue(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	raw := newRawClient(t, p)
	for i := range healthy + 1 {
		body := fmt.Sprintf("m%05d", i)
		if i == healthy/2 {
			body = "poison"
		}
		if err := raw.publish(ctx, "/amq/queue/"+src, messaging.NewEnvelope("poison", []byte(body))); err != nil {
			t.Fatal(err)
		}
	}

	sess := newTestSession(t, p)
	recv, err := NewReceiver(sess, ReceiverConfig{Address: "/amq/queue/" + src, Retry: RetryReleased, OnPermanent: PermanentRejected},
		WithMaxInFlight(window))
	if err != nil {
		t.Fatal(err)
	}
	send, err := NewSender(sess, SenderConfig{Address: dst})
	if err != nil {
		t.Fatal(err)
	}
	poisoned := &poisonSender{next: send}
	held := &holdingReceiver{Receiver: recv}
	dlq := &countingDLQ{}
	rt, err := runtime.New([]runtime.Route{{
		ID: "poison", ReceiverID: "src", Receiver: held, DeliveryMode: runtime.DirectHold,
		Bindings: []runtime.Binding{{ID: "dst", Sender: poisoned}},
		Policy: runtime.Policy{MaxInFlight: window, SendTimeout: 5 * time.Second, MaxReplayAttempts: attempts,
			ReplayBudget: time.Millisecond, Backoff: runtime.Backoff{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond}},
	}}, runtime.Options{DLQ: dlq, StopTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(runCtx) }()
	q091 := strings.TrimPrefix(dst, "/amq/queue/")
	waitDepth(ctx, t, p.url091, dead, func(d int) bool { return d == 1 })
	waitDepth(ctx, t, p.url091, q091, func(d int) bool { return d >= healthy })
	waitDepth(ctx, t, p.url091, src, func(d int) bool { return d == 0 })
	stop()
	if err := <-done; err != nil {
		t.Fatalf("runtime: %v", err)
	}

	seen := drainMarkers(t, p.url091, q091)
	t.Logf("poison tried %d times; at most %d deliveries held at once", poisoned.failed.Load(), held.max.Load())
	for i := range healthy + 1 {
		if i == healthy/2 {
			continue
		}
		if c := seen[fmt.Sprintf("m%05d", i)]; c != 1 {
			t.Errorf("m%05d arrived %d times, want once", i, c)
		}
	}
	if n := poisoned.failed.Load(); n != attempts {
		t.Errorf("the poison message was tried %d times, want %d (max replay attempts)", n, attempts)
	}
	if n := dlq.n.Load(); n != 0 {
		t.Errorf("the bridge's DLQ got %d entries; the broker should have dead-lettered the poison message", n)
	}
	if reason := deathReason(t, p.url091, dead); reason != "rejected" {
		t.Errorf("the dead letter's x-death reason is %q, want rejected", reason)
	}
	if m := held.max.Load(); m > int32(window) {
		t.Errorf("the route held %d deliveries at once, more than max_in_flight %d", m, window)
	}
}

// declareWithDeadLetters declares a queue whose dead letters go to a
// second queue through the default exchange, and returns both names.
func declareWithDeadLetters(t *testing.T, p peer) (string, string) {
	t.Helper()
	q := uniqueName(t)
	dead := q + ".dead"
	conn, err := amqp091.Dial(p.url091)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
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
	return q, dead
}

// deathReason reads the one message of queue and returns the reason of
// its first x-death entry.
func deathReason(t *testing.T, url091, queue string) string {
	t.Helper()
	conn, err := amqp091.Dial(url091)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	m, ok, err := ch.Get(queue, true)
	if err != nil || !ok {
		t.Fatalf("read the dead letter: ok=%v err=%v", ok, err)
	}
	deaths, _ := m.Headers["x-death"].([]any)
	if len(deaths) == 0 {
		return ""
	}
	d, _ := deaths[0].(amqp091.Table)
	r, _ := d["reason"].(string)
	return r
}

// poisonSender fails every send of the payload "poison" transiently and
// forwards the others.
type poisonSender struct {
	next   ports.Sender
	failed atomic.Int32
}

func (s *poisonSender) Send(ctx context.Context, msg ports.OutboundMessage) error {
	if string(msg.Envelope.PayloadView()) == "poison" {
		s.failed.Add(1)
		return fault.ErrUnavailable.WithMessage("test: this message always fails")
	}
	return s.next.Send(ctx, msg)
}

// holdingReceiver counts the deliveries the route holds (handed over,
// not settled yet) and remembers the most at once. A delivery stops
// counting just before its disposition goes out, since the peer may send
// the next one as soon as it has seen it.
type holdingReceiver struct {
	*Receiver
	cur, max atomic.Int32
}

func (r *holdingReceiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	return r.Receiver.Run(ctx, func(ctx context.Context, d ports.Delivery) error {
		n := r.cur.Add(1)
		for m := r.max.Load(); n > m && !r.max.CompareAndSwap(m, n); m = r.max.Load() {
		}
		hd := &heldDelivery{delivery: d.(*delivery), r: r}
		if err := emit(ctx, hd); err != nil {
			hd.release()
			return err
		}
		return nil
	})
}

// heldDelivery is a delivery counted by a holdingReceiver until settled.
type heldDelivery struct {
	*delivery
	r    *holdingReceiver
	done atomic.Bool
}

func (d *heldDelivery) release() {
	if d.done.CompareAndSwap(false, true) {
		d.r.cur.Add(-1)
	}
}

func (d *heldDelivery) Ack(ctx context.Context) error {
	d.release()
	return d.delivery.Ack(ctx)
}

// Retry waits out the delay itself, so that the delivery counts as held
// until the disposition is sent.
func (d *heldDelivery) Retry(ctx context.Context, after time.Duration, reason error) error {
	t := time.NewTimer(after)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	d.release()
	return d.delivery.Retry(ctx, 0, reason)
}

func (d *heldDelivery) Reject(ctx context.Context, c ports.DLQCategory, reason error) error {
	d.release()
	return d.delivery.Reject(ctx, c, reason)
}
