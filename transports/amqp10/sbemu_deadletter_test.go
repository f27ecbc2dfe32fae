package amqp10

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"sync"
	"testing"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// The emulator's dead-letter queue of a queue, and what it writes on a
// dead-lettered message.
const (
	sbemuDLQSuffix     = "/$DeadLetterQueue"
	sbemuDLReason      = "DeadLetterReason"
	sbemuDLDescription = "DeadLetterErrorDescription"
	sbemuDLSource      = "x-opt-deadletter-source"
)

// TestSbemuRejectedGoesToTheDeadLetterQueue: with on_permanent: rejected,
// a message whose destination fails permanently is disposed rejected with
// the condition gobridge:permanent; the emulator moves it to
// QUEUE/$DeadLetterQueue, where a plain go-amqp receiver reads it, and the
// bridge's own DLQ stays empty.
func TestSbemuRejectedGoesToTheDeadLetterQueue(t *testing.T) {
	p := sbemuPeer(t, sbemuQueue{name: "orders", lock: 10 * time.Second})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	recv, err := NewReceiver(newTestSession(t, p), ReceiverConfig{Address: "orders", OnPermanent: PermanentRejected})
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
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(runCtx) }()
	env := messaging.NewEnvelope("orders.created", []byte("bad"))
	if err := newRawClient(t, p).publish(ctx, "orders", env); err != nil {
		t.Fatal(err)
	}
	waitStats(ctx, t, p, "orders", func(c sbemuCounts) bool { return c == sbemuCounts{DeadLetter: 1} })
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := dlq.n.Load(); n != 0 {
		t.Errorf("the bridge's DLQ got %d entries; the peer should have dead-lettered the message", n)
	}
	dead := readOne(ctx, t, p, "orders"+sbemuDLQSuffix)
	if got := string(dead.GetData()); got != "bad" {
		t.Errorf("dead letter payload %q, want %q", got, "bad")
	}
	if dead.Properties == nil || dead.Properties.MessageID != env.ID {
		t.Errorf("dead letter properties %+v, want message-id %q", dead.Properties, env.ID)
	}
	if src := dead.Annotations[sbemuDLSource]; src != "orders" {
		t.Errorf("dead letter %s = %#v, want \"orders\"", sbemuDLSource, src)
	}
	t.Run("ConditionKept", func(t *testing.T) {
		reason, description := dead.ApplicationProperties[sbemuDLReason], dead.ApplicationProperties[sbemuDLDescription]
		wantReason, wantDescription := "gobridge:"+string(ports.DLQPermanent), string(fault.CodeOf(fault.ErrForbidden))
		if reason != wantReason || description != wantDescription {
			t.Errorf("dead letter %s %#v, %s %#v; want %q, %q", sbemuDLReason, reason, sbemuDLDescription, description, wantReason, wantDescription)
		}
	})
}

// TestSbemuPoisonAmongHealthyMessages is TestPoisonAmongHealthyMessages on
// a peer that takes modified: with max_in_flight 1 and 2, 30 healthy
// messages and one whose sends always fail transiently. The poison message
// is disposed modified and redelivered with a growing delivery-count until
// the route's 3 replay attempts are spent, then rejected into the
// emulator's dead-letter queue. Every healthy message arrives exactly once,
// the bridge's own DLQ stays empty, and the route never holds more
// deliveries than the credit.
func TestSbemuPoisonAmongHealthyMessages(t *testing.T) {
	for _, window := range []int{1, 2} {
		t.Run(fmt.Sprintf("max_in_flight=%d", window), func(t *testing.T) { testSbemuPoison(t, window) })
	}
}

func testSbemuPoison(t *testing.T, window int) {
	const healthy, attempts = 30, 3
	p := sbemuPeer(t, sbemuQueue{name: "src", lock: 10 * time.Second}, sbemuQueue{name: "dst"})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	raw := newRawClient(t, p)
	for i := range healthy + 1 {
		body := fmt.Sprintf("m%05d", i)
		if i == healthy/2 {
			body = "poison"
		}
		if err := raw.publish(ctx, "src", messaging.NewEnvelope("poison", []byte(body))); err != nil {
			t.Fatal(err)
		}
	}

	sess := newTestSession(t, p)
	recv, err := NewReceiver(sess, ReceiverConfig{Address: "src", Retry: RetryModified, OnPermanent: PermanentRejected},
		WithMaxInFlight(window))
	if err != nil {
		t.Fatal(err)
	}
	send, err := NewSender(sess, SenderConfig{Address: "dst"})
	if err != nil {
		t.Fatal(err)
	}
	poisoned := &poisonSender{next: send}
	held := &holdingReceiver{Receiver: recv}
	counts := &countingReceiver{holdingReceiver: held, poison: map[int]int{}}
	dlq := &countingDLQ{}
	rt, err := runtime.New([]runtime.Route{{
		ID: "poison", ReceiverID: "src", Receiver: counts, DeliveryMode: runtime.DirectHold,
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
	waitStats(ctx, t, p, "src", func(c sbemuCounts) bool { return c == sbemuCounts{DeadLetter: 1} })
	waitStats(ctx, t, p, "dst", func(c sbemuCounts) bool { return c.Active >= healthy })
	stop()
	if err := <-done; err != nil {
		t.Fatalf("runtime: %v", err)
	}

	seen := drainSbemu(ctx, t, p, "dst")
	t.Logf("poison tried %d times, delivery counts %v; at most %d deliveries held at once", poisoned.failed.Load(), counts.poisonCounts(), held.max.Load())
	for i := range healthy + 1 {
		if i == healthy/2 {
			continue
		}
		if c := seen[fmt.Sprintf("m%05d", i)]; c != 1 {
			t.Errorf("m%05d arrived %d times, want once", i, c)
		}
	}
	if len(seen) != healthy {
		t.Errorf("the destination got %d distinct messages (%v), want %d", len(seen), seen, healthy)
	}
	if n := poisoned.failed.Load(); n != attempts {
		t.Errorf("the poison message was tried %d times, want %d (max replay attempts)", n, attempts)
	}
	if got := counts.poisonCounts(); fmt.Sprint(got) != "map[0:1 1:1 2:1]" {
		t.Errorf("the poison message arrived with delivery counts %v, want 0, 1 and 2 once each", got)
	}
	if n := dlq.n.Load(); n != 0 {
		t.Errorf("the bridge's DLQ got %d entries; the peer should have dead-lettered the poison message", n)
	}
	if got := string(readOne(ctx, t, p, "src"+sbemuDLQSuffix).GetData()); got != "poison" {
		t.Errorf("the dead letter is %q, want the poison message", got)
	}
	if m := held.max.Load(); m > int32(window) {
		t.Errorf("the route held %d deliveries at once, more than max_in_flight %d", m, window)
	}
}

// countingReceiver records the delivery counts the poison message
// arrives with.
type countingReceiver struct {
	*holdingReceiver
	mu     sync.Mutex
	poison map[int]int
}

func (r *countingReceiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	return r.holdingReceiver.Run(ctx, func(ctx context.Context, d ports.Delivery) error {
		if string(d.Envelope().PayloadView()) == "poison" {
			n, _ := d.(ports.RedeliveryCounter).RedeliveryCount()
			r.mu.Lock()
			r.poison[n]++
			r.mu.Unlock()
		}
		return emit(ctx, d)
	})
}

func (r *countingReceiver) poisonCounts() map[int]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.poison)
}

// drainSbemu reads every message of queue with a plain go-amqp receiver
// and counts the m00000 markers; it returns once the queue stays empty.
func drainSbemu(ctx context.Context, t *testing.T, p peer, queue string) map[string]int {
	t.Helper()
	raw := newRawClient(t, p)
	r, err := raw.sess.NewReceiver(ctx, queue, &amqp.ReceiverOptions{Credit: 100})
	if err != nil {
		t.Fatalf("attach to %s: %v", queue, err)
	}
	marker := regexp.MustCompile(`m\d{5}`)
	seen := map[string]int{}
	for {
		rctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		m, err := r.Receive(rctx, nil)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				t.Fatalf("drain %s: %v", queue, err)
			}
			return seen
		}
		seen[marker.FindString(string(m.GetData()))]++
		if err := r.AcceptMessage(ctx, m); err != nil {
			t.Fatalf("accept on %s: %v", queue, err)
		}
	}
}
