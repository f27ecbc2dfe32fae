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

// runRoute runs one direct_hold route from r to out until the returned
// stop is called; stop waits for the runtime to end.
func runRoute(ctx context.Context, t *testing.T, r *Receiver, out ports.Sender, backoff time.Duration) (stop func()) {
	t.Helper()
	zero := 0.0
	rt, err := runtime.New([]runtime.Route{{ID: "r", ReceiverID: "mqtt-in", Receiver: r,
		Bindings: []runtime.Binding{{ID: "mem", Sender: out, Address: "sink"}},
		Policy: runtime.Policy{MaxInFlight: 2,
			Backoff: runtime.Backoff{Initial: backoff, Max: backoff, Jitter: &zero}}}},
		runtime.Options{Logger: quiet, DLQ: &fakeDLQ{}, StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(rctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("runtime: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// failingSender refuses every message transiently and counts the distinct
// messages it saw.
type failingSender struct {
	*memtransport.Sender
	mu   sync.Mutex
	seen map[string]bool
}

func newFailingSender() *failingSender {
	f := &failingSender{seen: map[string]bool{}}
	f.Sender = memtransport.NewSender(memtransport.SenderOptions{Fail: func(m ports.OutboundMessage) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.seen[string(m.Envelope.PayloadView())] = true
		return fault.ErrUnavailable.WithMessage("the target is down")
	}})
	return f
}

func (f *failingSender) distinct() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.seen)
}

// distinctSent counts the distinct payloads out accepted.
func distinctSent(out *memtransport.Sender) int {
	seen := map[string]bool{}
	for _, m := range out.Sent() {
		seen[string(m.Envelope.PayloadView())] = true
	}
	return len(seen)
}

// allAcknowledged reports whether every QoS 1/2 message of the current
// connection was acknowledged.
func allAcknowledged(s *Session) bool {
	s.acks.mu.Lock()
	defer s.acks.mu.Unlock()
	return s.acks.head == len(s.acks.order)
}

// hangingSender accepts nothing: every send waits until its context ends.
type hangingSender struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (h *hangingSender) Send(ctx context.Context, m ports.OutboundMessage) error {
	h.mu.Lock()
	h.seen[string(m.Envelope.PayloadView())] = true
	h.mu.Unlock()
	<-ctx.Done()
	return fault.ErrTimeout.WithMessage("the target never answered").Wrap(ctx.Err())
}

func (h *hangingSender) distinct() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.seen)
}

// TestReloadHandsHeldMessagesToTheReplacement restarts a route the way a
// reload does: its runtime stops while it has four messages
// (receive_maximum), its receiver is closed, and a replacement receiver on
// the same session starts with a healthy target. The old route had the
// messages either held for retries (target down) or two in flight and two
// still queued (target hanging; the runtime leaves the two unsettled when
// it stops). The closed receiver used to keep them unacknowledged for
// good, so the broker sent nothing more; now the replacement takes them
// over, and six later messages flow too.
func TestReloadHandsHeldMessagesToTheReplacement(t *testing.T) {
	requireBroker(t)
	tests := []struct {
		name   string
		target func() (ports.Sender, func() int) // the old route's target, and the messages it saw
		seen   int                               // messages the old target sees before the reload
	}{
		{"held for retries", func() (ports.Sender, func() int) { f := newFailingSender(); return f, f.distinct }, 4},
		{"in flight and queued", func() (ports.Sender, func() int) {
			h := &hangingSender{seen: map[string]bool{}}
			return h, h.distinct
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			topic := "gobridge-it/reload/" + unique()
			s := newSession(t, SessionConfig{ClientID: "reload-" + unique(), SessionExpiry: 30 * time.Second, ReceiveMaximum: 4})
			rcfg := ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: topic}}}
			r1, err := NewReceiver(s, rcfg)
			if err != nil {
				t.Fatal(err)
			}
			old, seen := tt.target()
			stop1 := runRoute(ctx, t, r1, old, time.Minute)
			waitFor(ctx, t, "the subscription", func() bool { return s.Health(ctx).Subscribed })
			snd, _ := NewSender(startSession(t, SessionConfig{}), SenderConfig{DefaultTopic: topic})
			for i := range 4 {
				if err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(i)}); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(ctx, t, "the old route busy with the messages", func() bool { return seen() == tt.seen })
			waitFor(ctx, t, "the rest received", func() bool {
				s.acks.mu.Lock()
				defer s.acks.mu.Unlock()
				return len(s.acks.order) == 4
			})

			stop1()
			if err := r1.Close(ctx); err != nil {
				t.Fatal(err)
			}
			r2, err := NewReceiver(s, rcfg)
			if err != nil {
				t.Fatal(err)
			}
			up := memtransport.NewSender(memtransport.SenderOptions{})
			runRoute(ctx, t, r2, up, 10*time.Millisecond)
			for i := 4; i < 10; i++ {
				if err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(i)}); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(ctx, t, "all ten messages through the replacement", func() bool { return distinctSent(up) == 10 })
			waitFor(ctx, t, "every acknowledgement", func() bool { return allAcknowledged(s) })
		})
	}
}

// TestRemovedRouteReleasesItsMessages removes one of two routes on a
// session while it holds two messages for retries (receive_maximum 4).
// Nothing replaces its receiver, so after the grace period the session
// releases them (a reconnection: the broker sends them again and, with no
// subscriber left, they are acknowledged as unrouted), and the other
// route, which used to stall after two more messages, receives all ten of
// its own.
func TestRemovedRouteReleasesItsMessages(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	removed, kept := "gobridge-it/removed/"+unique(), "gobridge-it/kept/"+unique()
	s := newSession(t, SessionConfig{ClientID: "remove-" + unique(), SessionExpiry: 30 * time.Second, ReceiveMaximum: 4})
	r1, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: removed}}})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: kept}}})
	if err != nil {
		t.Fatal(err)
	}
	down := newFailingSender()
	stop1 := runRoute(ctx, t, r1, down, time.Minute)
	up := memtransport.NewSender(memtransport.SenderOptions{})
	runRoute(ctx, t, r2, up, 10*time.Millisecond)
	waitFor(ctx, t, "the subscriptions", func() bool { return s.Health(ctx).Subscribed })

	snd, _ := NewSender(startSession(t, SessionConfig{}), SenderConfig{})
	for i := range 2 {
		if err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(i), Address: removed}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(ctx, t, "two messages held for a retry", func() bool { return down.distinct() == 2 })
	stop1()
	if err := r1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(100 + i), Address: kept}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(ctx, t, "all ten messages of the remaining route", func() bool { return distinctSent(up) == 10 })
	waitFor(ctx, t, "every acknowledgement", func() bool { return allAcknowledged(s) })
	if rs := s.subs.receivers.Load(); rs == nil || len(*rs) != 1 || (*rs)[0] != r2 {
		t.Errorf("attached receivers %v, want only the remaining one", rs)
	}
}
