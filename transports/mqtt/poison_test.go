package mqtt

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// fakeDLQ records the entries the runtime dead-letters; fail, when set,
// refuses them.
type fakeDLQ struct {
	mu      sync.Mutex
	entries []ports.DLQEntry
	fail    func() error
}

func (f *fakeDLQ) Write(_ context.Context, e ports.DLQEntry) error {
	if f.fail != nil {
		if err := f.fail(); err != nil {
			return err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.entries = append(f.entries, e)
	return nil
}

func (f *fakeDLQ) written() []ports.DLQEntry {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ports.DLQEntry(nil), f.entries...)
}

// TestPoisonMessageDoesNotStallTheSession publishes one message whose
// target keeps failing transiently, then healthy ones, to a direct_hold
// route on a session with receive_maximum 4. MQTT acknowledges in order,
// so holding the poison message for its retries used to hold back every
// later PUBACK, and the broker stopped after four messages until the
// replay budget (15 minutes) ran out. Now the retry that would block the
// session is refused: the poison message goes to the DLQ as
// retry_unsupported, every healthy message is delivered, and every
// acknowledgement goes out.
func TestPoisonMessageDoesNotStallTheSession(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	topic := "gobridge-it/poison/" + unique()
	s := newSession(t, SessionConfig{ClientID: "poison-" + unique(), SessionExpiry: 30 * time.Second, ReceiveMaximum: 4})
	r, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: topic}}})
	if err != nil {
		t.Fatal(err)
	}
	const poison, healthy = "m-00000", 30
	out := memtransport.NewSender(memtransport.SenderOptions{Fail: func(m ports.OutboundMessage) error {
		if string(m.Envelope.PayloadView()) == poison {
			return fault.ErrUnavailable.WithMessage("this target never takes the poison message")
		}
		return nil
	}})
	dlq := &fakeDLQ{}
	zero := 0.0
	rt, err := runtime.New([]runtime.Route{{ID: "r", ReceiverID: "mqtt-in", Receiver: r,
		Bindings: []runtime.Binding{{ID: "mem", Sender: out, Address: "sink"}},
		Policy: runtime.Policy{MaxInFlight: 8,
			Backoff: runtime.Backoff{Initial: 20 * time.Millisecond, Max: 50 * time.Millisecond, Jitter: &zero}}}},
		runtime.Options{Logger: quiet, DLQ: dlq})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(rctx) }()
	defer func() { stop(); <-done }()
	waitFor(ctx, t, "the subscription", func() bool { return s.Health(ctx).Subscribed })

	snd, _ := NewSender(startSession(t, SessionConfig{}), SenderConfig{DefaultTopic: topic})
	for i := range healthy + 1 {
		if err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.WaitSent(ctx, healthy); err != nil {
		t.Fatalf("healthy messages delivered behind the poison one: %d of %d: %v", len(out.Sent()), healthy, err)
	}
	waitFor(ctx, t, "the poison message in the DLQ", func() bool { return len(dlq.written()) == 1 })
	e := dlq.written()[0]
	if e.Category != ports.DLQRetryUnsupported || e.Envelope.ID == "" || string(e.Envelope.PayloadView()) != poison {
		t.Errorf("DLQ entry %+v, want the poison message as retry_unsupported", e)
	}
	waitFor(ctx, t, "every acknowledgement", func() bool {
		s.acks.mu.Lock()
		defer s.acks.mu.Unlock()
		return s.acks.head == len(s.acks.order)
	})
}

// laterSettled reports whether the oldest unacknowledged message of the
// session's connection holds back a message settled after it.
func laterSettled(s *Session) bool {
	s.acks.mu.Lock()
	var oldest *ackToken
	if s.acks.head < len(s.acks.order) {
		oldest = s.acks.order[s.acks.head]
	}
	s.acks.mu.Unlock()
	return s.acks.blocking(oldest)
}

// TestOneFailureUnderLoadIsRetriedInProcess fails one message once, and
// only after a later message was settled, so that its hold holds back an
// acknowledgement. A message gets one in-process retry even then: it is
// delivered on the retry, nothing reaches the DLQ.
func TestOneFailureUnderLoadIsRetriedInProcess(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	topic := "gobridge-it/blip/" + unique()
	s := newSession(t, SessionConfig{ClientID: "blip-" + unique(), SessionExpiry: 30 * time.Second, ReceiveMaximum: 8})
	r, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: topic}}})
	if err != nil {
		t.Fatal(err)
	}
	const flaky, total = "m-00000", 10
	var failed bool
	out := memtransport.NewSender(memtransport.SenderOptions{Fail: func(m ports.OutboundMessage) error {
		if string(m.Envelope.PayloadView()) != flaky || failed {
			return nil
		}
		failed = true // the route hands this message to one worker at a time
		waitFor(ctx, t, "a later message settled", func() bool { return laterSettled(s) })
		return fault.ErrUnavailable.WithMessage("a blip")
	}})
	dlq := &fakeDLQ{}
	zero := 0.0
	rt, err := runtime.New([]runtime.Route{{ID: "r", ReceiverID: "mqtt-in", Receiver: r,
		Bindings: []runtime.Binding{{ID: "mem", Sender: out, Address: "sink"}},
		Policy: runtime.Policy{MaxInFlight: 4,
			Backoff: runtime.Backoff{Initial: 20 * time.Millisecond, Max: 50 * time.Millisecond, Jitter: &zero}}}},
		runtime.Options{Logger: quiet, DLQ: dlq})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(rctx) }()
	defer func() { stop(); <-done }()
	waitFor(ctx, t, "the subscription", func() bool { return s.Health(ctx).Subscribed })
	snd, _ := NewSender(startSession(t, SessionConfig{}), SenderConfig{DefaultTopic: topic})
	for i := range total {
		if err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.WaitSent(ctx, total); err != nil {
		t.Fatalf("delivered %d of %d: %v", len(out.Sent()), total, err)
	}
	if e := dlq.written(); len(e) != 0 {
		t.Errorf("DLQ entries %+v, want none: one failure is retried in the process", e)
	}
	waitFor(ctx, t, "every acknowledgement", func() bool { return allAcknowledged(s) })
}
