package sbemu

import (
	"bytes"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/google/go-cmp/cmp"
)

func TestSendBatchReceiveComplete(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "orders"}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	s := newSender(t, c, "orders")
	if err := s.SendMessage(ctx, &azservicebus.Message{Body: []byte("one")}, nil); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	b, err := s.NewMessageBatch(ctx, nil)
	if err != nil {
		t.Fatalf("NewMessageBatch: %v", err)
	}
	for _, body := range []string{"two", "three"} {
		if err := b.AddMessage(&azservicebus.Message{Body: []byte(body)}, nil); err != nil {
			t.Fatalf("AddMessage: %v", err)
		}
	}
	if err := s.SendMessageBatch(ctx, b, nil); err != nil {
		t.Fatalf("SendMessageBatch: %v", err)
	}
	r := newReceiver(t, c, "orders", nil)
	msgs := receiveN(ctx, t, r, 3)
	if diff := cmp.Diff([]string{"one", "two", "three"}, bodies(msgs)); diff != "" {
		t.Errorf("bodies (-want +got):\n%s", diff)
	}
	for i, m := range msgs {
		if m.SequenceNumber == nil || *m.SequenceNumber != int64(i+1) {
			t.Errorf("message %d: SequenceNumber = %v, want %d", i, m.SequenceNumber, i+1)
		}
		if m.DeliveryCount != 1 {
			t.Errorf("message %d: DeliveryCount = %d, want 1", i, m.DeliveryCount)
		}
		if m.LockedUntil == nil || m.EnqueuedTime == nil {
			t.Errorf("message %d: LockedUntil %v, EnqueuedTime %v: want both set", i, m.LockedUntil, m.EnqueuedTime)
		}
		if err := r.CompleteMessage(ctx, m, nil); err != nil {
			t.Fatalf("CompleteMessage: %v", err)
		}
	}
}

func TestTimeToLiveExpiresMessages(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q"}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	s := newSender(t, c, "q")
	ttl := 300 * time.Millisecond
	if err := s.SendMessage(ctx, &azservicebus.Message{Body: []byte("stale"), TimeToLive: &ttl}, nil); err != nil {
		t.Fatal(err)
	}
	waitCounts(ctx, t, e, "q", Counts{}) // gone once the TTL passed
	sendBodies(ctx, t, s, "fresh")
	r := newReceiver(t, c, "q", nil)
	m := receiveN(ctx, t, r, 1)[0]
	if string(m.Body) != "fresh" {
		t.Errorf("got %q, want fresh (the expired message is dropped)", m.Body)
	}
}

func TestMessageFieldsRoundTrip(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q"}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	ttl := time.Hour
	big := bytes.Repeat([]byte("0123456789abcdef"), 200*1024/16) // several AMQP frames
	sent := &azservicebus.Message{
		Body:             big,
		MessageID:        ptr("id-1"),
		CorrelationID:    ptr("corr"),
		ContentType:      ptr("application/json"),
		Subject:          ptr("subject"),
		To:               ptr("to"),
		ReplyTo:          ptr("reply"),
		ReplyToSessionID: ptr("reply-session"),
		PartitionKey:     ptr("pk"),
		TimeToLive:       &ttl,
		ApplicationProperties: map[string]any{
			"s": "text", "i": int64(-7), "b": true, "f": 1.5, "t": time.UnixMilli(1700000000123).UTC(),
		},
	}
	if err := newSender(t, c, "q").SendMessage(ctx, sent, nil); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	r := newReceiver(t, c, "q", nil)
	got := receiveN(ctx, t, r, 1)[0]
	if !bytes.Equal(got.Body, big) {
		t.Errorf("body: got %d bytes, want %d", len(got.Body), len(big))
	}
	want := []any{"id-1", "corr", "application/json", "subject", "to", "reply", "reply-session", "pk", ttl}
	have := []any{got.MessageID, deref(got.CorrelationID), deref(got.ContentType), deref(got.Subject), deref(got.To),
		deref(got.ReplyTo), deref(got.ReplyToSessionID), deref(got.PartitionKey), *got.TimeToLive}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(sent.ApplicationProperties, got.ApplicationProperties); diff != "" {
		t.Errorf("application properties (-want +got):\n%s", diff)
	}
	if err := r.CompleteMessage(ctx, got, nil); err != nil {
		t.Fatal(err)
	}
}

func TestAMQPValueBodyRoundTrip(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q"}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	sent := &azservicebus.AMQPAnnotatedMessage{
		Body:                  azservicebus.AMQPAnnotatedMessageBody{Value: map[string]any{"k": int64(1)}},
		ApplicationProperties: map[string]any{"p": "v"},
	}
	if err := newSender(t, c, "q").SendAMQPAnnotatedMessage(ctx, sent, nil); err != nil {
		t.Fatalf("SendAMQPAnnotatedMessage: %v", err)
	}
	r := newReceiver(t, c, "q", nil)
	got := receiveN(ctx, t, r, 1)[0]
	if diff := cmp.Diff(sent.Body.Value, got.RawAMQPMessage.Body.Value); diff != "" {
		t.Errorf("value body (-want +got):\n%s", diff)
	}
}
