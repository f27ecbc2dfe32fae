package mqtt

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// termRun runs a receiver whose handler acks the first ackFirst messages
// it is handed and leaves the others unsettled, recording every payload.
type termRun struct {
	mu     sync.Mutex
	got    []string
	cancel context.CancelFunc
	done   chan struct{}
}

func runTerm(ctx context.Context, r *Receiver, ackFirst int) *termRun {
	ctx, cancel := context.WithCancel(ctx)
	tr := &termRun{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(tr.done)
		_ = r.Run(ctx, func(ctx context.Context, d ports.Delivery) error {
			tr.mu.Lock()
			tr.got = append(tr.got, string(d.Envelope().PayloadView()))
			n := len(tr.got)
			tr.mu.Unlock()
			if n <= ackFirst {
				return d.Ack(ctx)
			}
			return nil
		})
	}()
	return tr
}

func (tr *termRun) stop() { tr.cancel(); <-tr.done }

func (tr *termRun) received() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.got...)
}

// TestDeferredSessionConnectsOnlyWithinTerms plays two instances of a
// cluster sharing one MQTT client id: instance A holds the lease, acks 5
// of 20 messages and loses the lease with 15 unsettled; 10 more are
// published while nobody holds it; instance B wins the lease and gets
// exactly those 25 from the resumed broker session. When A wins the lease
// again, nothing of its first term is handed out again, and a term whose
// lease is no longer valid does not connect at all.
func TestDeferredSessionConnectsOnlyWithinTerms(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	topic := "gobridge-it/term/" + unique()
	cfg := SessionConfig{ClientID: "term-" + unique(), SessionExpiry: time.Minute}
	held := func() bool { return true }
	subs := ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: topic}}}
	snd, err := NewSender(startSession(t, SessionConfig{}), SenderConfig{DefaultTopic: topic})
	if err != nil {
		t.Fatal(err)
	}
	publish := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			if err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	payloads := func(from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, string(numberedEnvelope(i).PayloadView()))
		}
		return out
	}

	a := newSession(t, cfg)
	if err := a.DeferConnect(); err != nil {
		t.Fatal(err)
	}
	if err := a.Start(ctx); err != nil {
		t.Fatalf("Start of a deferred session: %v", err)
	}
	if h := a.Health(ctx); h.Connected || !a.AwaitingLease() {
		t.Fatalf("deferred session before its term: health %+v, awaiting lease %v; want not connected, awaiting", h, a.AwaitingLease())
	}

	// Term 1 on A: 5 of 20 acked, 15 left unsettled.
	r1, err := NewReceiver(a, subs)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.BeginTerm(ctx, held); err != nil {
		t.Fatalf("BeginTerm: %v", err)
	}
	waitFor(ctx, t, "A subscribed", func() bool { return a.Health(ctx).Subscribed })
	run1 := runTerm(ctx, r1, 5)
	publish(0, 20)
	waitFor(ctx, t, "A handed every message", func() bool { return len(run1.received()) == 20 })
	run1.stop()
	if err := a.EndTerm(ctx); err != nil {
		t.Fatalf("EndTerm: %v", err)
	}
	_ = r1.Close(ctx)
	if h := a.Health(ctx); h.Connected || !a.AwaitingLease() {
		t.Fatalf("after its term: health %+v, awaiting lease %v; want not connected, awaiting", h, a.AwaitingLease())
	}
	publish(20, 30) // nobody holds the lease: the broker keeps them

	// Term on B: the 15 unsettled and the 10 new, nothing else.
	b := newSession(t, cfg)
	if err := b.DeferConnect(); err != nil {
		t.Fatal(err)
	}
	r2, err := NewReceiver(b, subs)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.BeginTerm(ctx, held); err != nil {
		t.Fatalf("BeginTerm on B: %v", err)
	}
	run2 := runTerm(ctx, r2, 1000)
	waitFor(ctx, t, "B got the 25", func() bool { return len(run2.received()) >= 25 })
	run2.stop()
	if diff := cmp.Diff(append(payloads(5, 20), payloads(20, 30)...), run2.received()); diff != "" {
		t.Errorf("B's term (-want +got):\n%s", diff)
	}
	if err := b.EndTerm(ctx); err != nil {
		t.Fatal(err)
	}
	_ = r2.Close(ctx)

	// Term 2 on A: a fresh receiver; the first term's messages are the
	// broker's (acked by B), so only new ones arrive.
	r3, err := NewReceiver(a, subs)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.BeginTerm(ctx, held); err != nil {
		t.Fatalf("second BeginTerm on A: %v", err)
	}
	waitFor(ctx, t, "A subscribed again", func() bool { return a.Health(ctx).Subscribed })
	run3 := runTerm(ctx, r3, 1000)
	publish(30, 33)
	waitFor(ctx, t, "A's second term", func() bool { return len(run3.received()) >= 3 })
	run3.stop()
	if diff := cmp.Diff(payloads(30, 33), run3.received()); diff != "" {
		t.Errorf("A's second term (-want +got):\n%s", diff)
	}
	if err := a.EndTerm(ctx); err != nil {
		t.Fatal(err)
	}

	// A term whose lease is over does not connect.
	c := newSession(t, cfg)
	if err := c.DeferConnect(); err != nil {
		t.Fatal(err)
	}
	err = c.BeginTerm(ctx, func() bool { return false })
	if fault.CodeOf(err) != fault.CodeUnavailable {
		t.Errorf("BeginTerm with an expired lease = %v, want UNAVAILABLE", err)
	}
	if c.Health(ctx).Connected {
		t.Error("a term with an expired lease connected")
	}
	if err := c.EndTerm(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestDeferConnectNeedsAResumingSession: without a resuming session the
// broker would forget the subscriptions and the unsettled messages at
// every hand-over, so DeferConnect refuses it.
func TestDeferConnectNeedsAResumingSession(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  SessionConfig
	}{
		{"no expiry", SessionConfig{ClientID: "x"}},
		{"clean start", SessionConfig{ClientID: "x", SessionExpiry: time.Minute, CleanStart: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, tc.cfg)
			if err := s.DeferConnect(); fault.CodeOf(err) != fault.CodeInvalidConfig {
				t.Errorf("DeferConnect = %v, want INVALID_CONFIG", err)
			}
		})
	}
}
