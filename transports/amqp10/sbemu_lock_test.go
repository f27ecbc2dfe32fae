package amqp10

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// TestSbemuPeerDeadLettersAtItsMaxDeliveryCount: a peer with a delivery
// limit of its own ends the retries when its count reaches it, whatever
// the route's max_replay_attempts: with the queue's max delivery count 2
// and the route's 5 attempts, the second modified disposition makes the
// emulator dead-letter the message itself (reason
// MaxDeliveryCountExceeded); the route saw two attempts and wrote nothing
// to the bridge's DLQ.
func TestSbemuPeerDeadLettersAtItsMaxDeliveryCount(t *testing.T) {
	p := sbemuPeer(t, sbemuQueue{name: "orders", lock: 10 * time.Second, maxDeliveries: 2})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := newRawClient(t, p).publish(ctx, "orders", messaging.NewEnvelope("orders.created", []byte("poison"))); err != nil {
		t.Fatal(err)
	}
	recv, err := NewReceiver(newTestSession(t, p), ReceiverConfig{Address: "orders", OnPermanent: PermanentRejected}, WithMaxInFlight(1))
	if err != nil {
		t.Fatal(err)
	}
	rec := &timingReceiver{Receiver: recv}
	poisoned := &poisonSender{}
	dlq := &countingDLQ{}
	rt, err := runtime.New([]runtime.Route{{
		ID: "limited", ReceiverID: "src", Receiver: rec, DeliveryMode: runtime.DirectHold,
		Bindings: []runtime.Binding{{ID: "dst", Sender: poisoned}},
		Policy: runtime.Policy{MaxInFlight: 1, SendTimeout: 5 * time.Second, MaxReplayAttempts: 5, ReplayBudget: time.Millisecond,
			Backoff: runtime.Backoff{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond}},
	}}, runtime.Options{DLQ: dlq, StopTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(runCtx) }()
	waitStats(ctx, t, p, "orders", func(c sbemuCounts) bool { return c == sbemuCounts{DeadLetter: 1} })
	stop()
	if err := <-done; err != nil {
		t.Fatalf("runtime: %v", err)
	}
	if n := poisoned.failed.Load(); n != 2 {
		t.Errorf("the route tried the message %d times, want 2 (the peer's limit)", n)
	}
	if n := len(rec.seen()); n != 2 {
		t.Errorf("%d deliveries, want 2", n)
	}
	if n := dlq.n.Load(); n != 0 {
		t.Errorf("the bridge's DLQ got %d entries, want none", n)
	}
	dead := readOne(ctx, t, p, "orders"+sbemuDLQSuffix)
	if r := dead.ApplicationProperties[sbemuDLReason]; r != "MaxDeliveryCountExceeded" {
		t.Errorf("dead letter %s %#v, want MaxDeliveryCountExceeded", sbemuDLReason, r)
	}
}

// TestSbemuRetryDelayLongerThanTheLock: deliveries of a peek-lock peer
// come back on their own once their lock expires, and Extend cannot renew
// it. A retry delay beyond the lock therefore duplicates the message in
// flight: with credit to spare, the peer redelivers it (counted) while the
// route still holds the first delivery; the late modified disposition is
// refused by the peer (the lock is lost) and counts nothing more. Nothing
// is lost: acking the redelivery within its own lock removes the message.
func TestSbemuRetryDelayLongerThanTheLock(t *testing.T) {
	const lock, delay = 300 * time.Millisecond, 2 * time.Second
	p := sbemuPeer(t, sbemuQueue{name: "orders", lock: lock})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := newRawClient(t, p).publish(ctx, "orders", messaging.NewEnvelope("orders.created", []byte("slow"))); err != nil {
		t.Fatal(err)
	}
	r, err := NewReceiver(newTestSession(t, p), ReceiverConfig{Address: "orders"}, WithMaxInFlight(2))
	if err != nil {
		t.Fatal(err)
	}
	deliveries := collect(ctx, t, r)
	next := deliveries.next
	first := next()
	retried := make(chan error, 1)
	go func() { retried <- first.Retry(ctx, delay, nil) }()
	again := next()
	select {
	case err := <-retried:
		t.Fatalf("the redelivery came only after Retry returned (%v); want it while the first delivery is held", err)
	default:
	}
	if n, known := countOf(t, again); n != 1 || !known {
		t.Errorf("redelivery after the lock expired: count %d (known %v), want 1", n, known)
	}
	// Within the redelivery's own lock.
	if err := again.Ack(ctx); err != nil {
		t.Fatalf("Ack: %v", err)
	}
	if err := <-retried; err != nil {
		t.Errorf("Retry: %v", err)
	}
	waitStats(ctx, t, p, "orders", func(c sbemuCounts) bool { return c == sbemuCounts{} })
	if d := deliveries.none(2 * lock); d != nil {
		n, _ := countOf(t, d)
		t.Errorf("a third delivery arrived (count %d) after the redelivery was acked", n)
	}
}
