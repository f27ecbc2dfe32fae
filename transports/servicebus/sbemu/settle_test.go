package sbemu

import (
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/google/go-cmp/cmp"
)

func TestAbandonRedeliversWithDeliveryCount(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q"}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	sendBodies(ctx, t, newSender(t, c, "q"), "a")
	r := newReceiver(t, c, "q", nil)
	first := receiveN(ctx, t, r, 1)[0]
	modify := &azservicebus.AbandonMessageOptions{PropertiesToModify: map[string]any{"attempt": int64(1)}}
	if err := r.AbandonMessage(ctx, first, modify); err != nil {
		t.Fatalf("AbandonMessage: %v", err)
	}
	again := receiveN(ctx, t, r, 1)[0]
	if string(again.Body) != "a" || again.DeliveryCount != 2 {
		t.Fatalf("redelivery: body %q DeliveryCount %d, want \"a\" 2", again.Body, again.DeliveryCount)
	}
	if diff := cmp.Diff(map[string]any{"attempt": int64(1)}, again.ApplicationProperties); diff != "" {
		t.Errorf("PropertiesToModify not applied (-want +got):\n%s", diff)
	}
	if *again.SequenceNumber != *first.SequenceNumber {
		t.Errorf("SequenceNumber changed: %d then %d", *first.SequenceNumber, *again.SequenceNumber)
	}
	if err := r.CompleteMessage(ctx, again, nil); err != nil {
		t.Fatalf("CompleteMessage: %v", err)
	}
	waitCounts(ctx, t, e, "q", Counts{})
}

func TestLockExpiryRedeliversAndSettlingLateIsLockLost(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q", LockDuration: 500 * time.Millisecond}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	sendBodies(ctx, t, newSender(t, c, "q"), "a")
	r := newReceiver(t, c, "q", nil)
	first := receiveN(ctx, t, r, 1)[0]
	if left := time.Until(*first.LockedUntil); left > 600*time.Millisecond || !first.LockedUntil.After(*first.EnqueuedTime) {
		t.Errorf("LockedUntil %v (%v from now), EnqueuedTime %v: want a lock of at most 500ms after the enqueue", first.LockedUntil, left, first.EnqueuedTime)
	}
	again := receiveN(ctx, t, r, 1)[0] // arrives once the lock expired
	if again.DeliveryCount != 2 {
		t.Errorf("DeliveryCount after lock expiry = %d, want 2", again.DeliveryCount)
	}
	err := r.CompleteMessage(ctx, first, nil)
	if got := codeOf(err); got != azservicebus.CodeLockLost {
		t.Fatalf("CompleteMessage with the expired lock: err %v (code %q), want code %q", err, got, azservicebus.CodeLockLost)
	}
	err = r.RenewMessageLock(ctx, first, nil)
	if got := codeOf(err); got != azservicebus.CodeLockLost {
		t.Fatalf("RenewMessageLock with the expired lock: err %v (code %q), want code %q", err, got, azservicebus.CodeLockLost)
	}
	if err := r.CompleteMessage(ctx, again, nil); err != nil {
		t.Fatalf("CompleteMessage with the live lock: %v", err)
	}
	waitCounts(ctx, t, e, "q", Counts{})
}

func TestRenewMessageLockKeepsTheMessage(t *testing.T) {
	const lock = 1500 * time.Millisecond
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q", LockDuration: lock}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	sendBodies(ctx, t, newSender(t, c, "q"), "a")
	r := newReceiver(t, c, "q", nil)
	m := receiveN(ctx, t, r, 1)[0]
	before := *m.LockedUntil
	// Renew for two lock durations; the message must stay locked throughout.
	tick := time.NewTicker(lock / 5)
	defer tick.Stop()
	end := time.Now().Add(2 * lock)
	for time.Now().Before(end) {
		<-tick.C
		if err := r.RenewMessageLock(ctx, m, nil); err != nil {
			t.Fatalf("RenewMessageLock: %v", err)
		}
		got, err := e.Counts(ctx, "q")
		if err != nil {
			t.Fatal(err)
		}
		if got != (Counts{Locked: 1}) {
			t.Fatalf("while renewing: Counts = %+v, want one locked message", got)
		}
	}
	if !m.LockedUntil.After(before) {
		t.Errorf("LockedUntil did not move: %v then %v", before, *m.LockedUntil)
	}
	if err := r.CompleteMessage(ctx, m, nil); err != nil {
		t.Fatalf("CompleteMessage after renewals: %v", err)
	}
	waitCounts(ctx, t, e, "q", Counts{})
}

func TestDeadLetterWithReason(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q"}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	sendBodies(ctx, t, newSender(t, c, "q"), "poison")
	r := newReceiver(t, c, "q", nil)
	m := receiveN(ctx, t, r, 1)[0]
	reason, desc := "Unparseable", "field x is missing"
	if err := r.DeadLetterMessage(ctx, m, &azservicebus.DeadLetterOptions{Reason: &reason, ErrorDescription: &desc}); err != nil {
		t.Fatalf("DeadLetterMessage: %v", err)
	}
	waitCounts(ctx, t, e, "q", Counts{DeadLetter: 1})
	dlq := newReceiver(t, c, "q", &azservicebus.ReceiverOptions{SubQueue: azservicebus.SubQueueDeadLetter})
	d := receiveN(ctx, t, dlq, 1)[0]
	got := []string{string(d.Body), deref(d.DeadLetterReason), deref(d.DeadLetterErrorDescription), deref(d.DeadLetterSource)}
	if diff := cmp.Diff([]string{"poison", reason, desc, "q"}, got); diff != "" {
		t.Errorf("dead-lettered message [body reason description source] (-want +got):\n%s", diff)
	}
	if err := dlq.CompleteMessage(ctx, d, nil); err != nil {
		t.Fatalf("CompleteMessage on the DLQ: %v", err)
	}
	waitCounts(ctx, t, e, "q", Counts{})
}

func TestMaxDeliveryCountDeadLetters(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q", MaxDeliveryCount: 3}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	sendBodies(ctx, t, newSender(t, c, "q"), "a")
	r := newReceiver(t, c, "q", nil)
	for i := 1; i <= 3; i++ {
		m := receiveN(ctx, t, r, 1)[0]
		if m.DeliveryCount != uint32(i) {
			t.Fatalf("delivery %d: DeliveryCount = %d", i, m.DeliveryCount)
		}
		if err := r.AbandonMessage(ctx, m, nil); err != nil {
			t.Fatalf("AbandonMessage: %v", err)
		}
	}
	waitCounts(ctx, t, e, "q", Counts{DeadLetter: 1})
	dlq := newReceiver(t, c, "q", &azservicebus.ReceiverOptions{SubQueue: azservicebus.SubQueueDeadLetter})
	d := receiveN(ctx, t, dlq, 1)[0]
	if deref(d.DeadLetterReason) != "MaxDeliveryCountExceeded" {
		t.Errorf("DeadLetterReason = %q, want MaxDeliveryCountExceeded", deref(d.DeadLetterReason))
	}
}

func TestDeferAndReceiveDeferred(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q"}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	sendBodies(ctx, t, newSender(t, c, "q"), "later")
	r := newReceiver(t, c, "q", nil)
	m := receiveN(ctx, t, r, 1)[0]
	if err := r.DeferMessage(ctx, m, nil); err != nil {
		t.Fatalf("DeferMessage: %v", err)
	}
	waitCounts(ctx, t, e, "q", Counts{Deferred: 1})
	got, err := r.ReceiveDeferredMessages(ctx, []int64{*m.SequenceNumber}, nil)
	if err != nil || len(got) != 1 || string(got[0].Body) != "later" {
		t.Fatalf("ReceiveDeferredMessages = %v, %v; want the deferred message", got, err)
	}
	if got[0].State != azservicebus.MessageStateDeferred {
		t.Errorf("State = %v, want deferred", got[0].State)
	}
	if err := r.CompleteMessage(ctx, got[0], nil); err != nil {
		t.Fatalf("CompleteMessage of a deferred message: %v", err)
	}
	waitCounts(ctx, t, e, "q", Counts{})
}

func TestReceiveAndDeleteAndPeek(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q"}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	sendBodies(ctx, t, newSender(t, c, "q"), "a", "b")
	peeker := newReceiver(t, c, "q", nil)
	peeked, err := peeker.PeekMessages(ctx, 10, nil)
	if err != nil {
		t.Fatalf("PeekMessages: %v", err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, bodies(peeked)); diff != "" {
		t.Errorf("peeked (-want +got):\n%s", diff)
	}
	r := newReceiver(t, c, "q", &azservicebus.ReceiverOptions{ReceiveMode: azservicebus.ReceiveModeReceiveAndDelete})
	msgs := receiveN(ctx, t, r, 2)
	if diff := cmp.Diff([]string{"a", "b"}, bodies(msgs)); diff != "" {
		t.Errorf("received (-want +got):\n%s", diff)
	}
	waitCounts(ctx, t, e, "q", Counts{})
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
