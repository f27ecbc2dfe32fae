package sbemu

import (
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/google/go-cmp/cmp"
)

func TestTopicFansOutToEverySubscription(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "events", Subscriptions: []Subscription{
		{Name: "audit"}, {Name: "billing", MaxDeliveryCount: 1},
	}}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	sendBodies(ctx, t, newSender(t, c, "events"), "e1", "e2")
	for _, sub := range []string{"audit", "billing"} {
		r, err := c.NewReceiverForSubscription("events", sub, nil)
		if err != nil {
			t.Fatalf("NewReceiverForSubscription(%s): %v", sub, err)
		}
		t.Cleanup(func() { _ = r.Close(ctx) })
		msgs := receiveN(ctx, t, r, 2)
		if diff := cmp.Diff([]string{"e1", "e2"}, bodies(msgs)); diff != "" {
			t.Errorf("%s got (-want +got):\n%s", sub, diff)
		}
		for _, m := range msgs {
			if err := r.CompleteMessage(ctx, m, nil); err != nil {
				t.Fatalf("%s: CompleteMessage: %v", sub, err)
			}
		}
		waitCounts(ctx, t, e, "events/Subscriptions/"+sub, Counts{})
	}
	// A subscription's own MaxDeliveryCount applies: one abandon dead-letters on billing.
	sendBodies(ctx, t, newSender(t, c, "events"), "e3")
	r, err := c.NewReceiverForSubscription("events", "billing", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(ctx) })
	m := receiveN(ctx, t, r, 1)[0]
	if err := r.AbandonMessage(ctx, m, nil); err != nil {
		t.Fatal(err)
	}
	waitCounts(ctx, t, e, "events/Subscriptions/billing", Counts{DeadLetter: 1})
	waitCounts(ctx, t, e, "events/Subscriptions/audit", Counts{Active: 1})
	dlq, err := c.NewReceiverForSubscription("events", "billing", &azservicebus.ReceiverOptions{SubQueue: azservicebus.SubQueueDeadLetter})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dlq.Close(ctx) })
	d := receiveN(ctx, t, dlq, 1)[0]
	if got := deref(d.DeadLetterSource); got != "events/Subscriptions/billing" {
		t.Errorf("DeadLetterSource = %q", got)
	}
}

func TestUnknownEntityIsNotFound(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q"}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	s := newSender(t, c, "nope")
	err := s.SendMessage(ctx, &azservicebus.Message{Body: []byte("x")}, nil)
	if got := codeOf(err); got != azservicebus.CodeNotFound {
		t.Errorf("send to a missing queue: err %v (code %q), want code %q", err, got, azservicebus.CodeNotFound)
	}
	r := newReceiver(t, c, "nope", nil)
	_, err = r.ReceiveMessages(ctx, 1, nil)
	if got := codeOf(err); got != azservicebus.CodeNotFound {
		t.Errorf("receive from a missing queue: err %v (code %q), want code %q", err, got, azservicebus.CodeNotFound)
	}
}

func TestScheduleAndCancel(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q"}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	s := newSender(t, c, "q")
	at := time.Now().Add(2 * time.Second) // time enough to cancel one, even on a loaded machine
	seqs, err := s.ScheduleMessages(ctx, []*azservicebus.Message{{Body: []byte("kept")}, {Body: []byte("cancelled")}}, at, nil)
	if err != nil || len(seqs) != 2 {
		t.Fatalf("ScheduleMessages = %v, %v; want two sequence numbers", seqs, err)
	}
	waitCounts(ctx, t, e, "q", Counts{Scheduled: 2})
	if err := s.CancelScheduledMessages(ctx, seqs[1:], nil); err != nil {
		t.Fatalf("CancelScheduledMessages: %v", err)
	}
	waitCounts(ctx, t, e, "q", Counts{Scheduled: 1})
	// The annotation path: a message sent with ScheduledEnqueueTime.
	later := at.Add(200 * time.Millisecond)
	if err := s.SendMessage(ctx, &azservicebus.Message{Body: []byte("annotated"), ScheduledEnqueueTime: &later}, nil); err != nil {
		t.Fatalf("SendMessage with ScheduledEnqueueTime: %v", err)
	}
	r := newReceiver(t, c, "q", nil)
	msgs := receiveN(ctx, t, r, 2)
	if diff := cmp.Diff([]string{"kept", "annotated"}, bodies(msgs)); diff != "" {
		t.Errorf("received (-want +got):\n%s", diff)
	}
	for i, m := range msgs {
		if m.EnqueuedTime.Before(at.Add(-50*time.Millisecond)) || m.ScheduledEnqueueTime == nil {
			t.Errorf("message %d: EnqueuedTime %v before its schedule %v, or ScheduledEnqueueTime %v missing", i, m.EnqueuedTime, at, m.ScheduledEnqueueTime)
		}
		if err := r.CompleteMessage(ctx, m, nil); err != nil {
			t.Fatal(err)
		}
	}
	if msgs[0].SequenceNumber == nil || *msgs[0].SequenceNumber != seqs[0] {
		t.Errorf("scheduled message SequenceNumber = %v, want %d as ScheduleMessages returned", msgs[0].SequenceNumber, seqs[0])
	}
	waitCounts(ctx, t, e, "q", Counts{})
}
