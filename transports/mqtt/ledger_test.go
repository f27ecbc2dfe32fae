package mqtt

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// fakeLedger keeps managed subscriptions in memory; its first failReads
// reads fail with a transient error.
type fakeLedger struct {
	mu        sync.Mutex
	sets      map[string][]ports.ManagedSubscription
	failReads int
}

func (l *fakeLedger) LoadSubscriptions(_ context.Context, session string) ([]ports.ManagedSubscription, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failReads > 0 {
		l.failReads--
		return nil, false, fault.ErrUnavailable.WithMessage("ledger down")
	}
	s, ok := l.sets[session]
	return s, ok, nil
}

func (l *fakeLedger) SaveSubscriptions(_ context.Context, session string, subs []ports.ManagedSubscription) error {
	out, err := ports.CheckSubscriptions(session, subs)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sets == nil {
		l.sets = map[string][]ports.ManagedSubscription{}
	}
	l.sets[session] = out
	return nil
}

// only returns the one set the ledger holds, or nil.
func (l *fakeLedger) only() []ports.ManagedSubscription {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.sets {
		return s
	}
	return nil
}

// TestLedgerUnsubscribesWhatTheConfigDropped restarts a durable session
// with one of its two subscriptions removed from the configuration. With
// a ledger the resumed broker session is unsubscribed from the dropped
// filter, so a message published there no longer reaches the bridge to
// be acked and dropped; without one it still does.
func TestLedgerUnsubscribesWhatTheConfigDropped(t *testing.T) {
	requireBroker(t)
	for _, tc := range []struct {
		name        string
		ledger      *fakeLedger
		wantDropped float64
	}{
		{"no ledger", nil, 1},
		{"ledger", &fakeLedger{}, 0},
		{"ledger read fails at first", &fakeLedger{failReads: 2}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			base := "gobridge-it/ledger/" + unique()
			cfg := SessionConfig{ClientID: "gb-ledger-" + unique(), SessionExpiry: 30 * time.Second}
			var opts []Option
			if tc.ledger != nil {
				opts = append(opts, WithSubscriptionLedger(tc.ledger))
			}
			subscribe := func(s *Session, topics ...string) *Receiver {
				t.Helper()
				var subs []SubscriptionConfig
				for _, tp := range topics {
					subs = append(subs, SubscriptionConfig{Topic: tp, QoS: new(1)})
				}
				r, err := NewReceiver(s, ReceiverConfig{Subscriptions: subs})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}

			first := newSession(t, cfg, opts...)
			r1 := subscribe(first, base+"/a", base+"/b")
			if err := first.Start(ctx); err != nil {
				t.Fatal(err)
			}
			collect(t, r1)
			waitFor(ctx, t, "first start subscribed", func() bool { return first.Health(ctx).Subscribed })
			if tc.ledger != nil {
				want := []ports.ManagedSubscription{{Filter: base + "/a", QoS: 1}, {Filter: base + "/b", QoS: 1}}
				waitFor(ctx, t, "baseline recorded", func() bool { return cmp.Equal(tc.ledger.only(), want) })
			}
			if err := first.Close(ctx); err != nil {
				t.Fatal(err)
			}

			meter := telemetry.NewMemory()
			second := newSession(t, cfg, append(opts, WithMeter(meter), WithName("s2"))...)
			r2 := subscribe(second, base+"/a")
			if err := second.Start(ctx); err != nil {
				t.Fatal(err)
			}
			got := collect(t, r2)
			waitFor(ctx, t, "restart subscribed", func() bool { return second.Health(ctx).Subscribed })
			if tc.ledger != nil {
				want := []ports.ManagedSubscription{{Filter: base + "/a", QoS: 1}}
				waitFor(ctx, t, "ledger updated", func() bool { return cmp.Equal(tc.ledger.only(), want) })
			}

			pub := startSession(t, SessionConfig{})
			snd, err := NewSender(pub, SenderConfig{QoS: new(1)})
			if err != nil {
				t.Fatal(err)
			}
			for _, tp := range []string{base + "/b", base + "/a"} {
				if err := snd.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("t", []byte(tp)), Address: tp}); err != nil {
					t.Fatal(err)
				}
			}
			if env := next(ctx, t, got); string(env.Payload()) != base+"/a" {
				t.Fatalf("received %q", env.Payload())
			}
			// The broker delivers one publisher's messages to a session in
			// order, so /b, if still subscribed, was routed before /a.
			if tc.wantDropped > 0 {
				waitFor(ctx, t, "the unrouted message", func() bool {
					return meter.Value("gobridge_mqtt_unrouted_total", "s2") == tc.wantDropped
				})
			} else if v := meter.Value("gobridge_mqtt_unrouted_total", "s2"); v != 0 {
				t.Errorf("unrouted = %v; the dropped filter is still subscribed", v)
			}
		})
	}
}

// TestLedgerKeepsNothingForAnEphemeralSession: a session the broker
// forgets at disconnect has nothing to reconcile and writes nothing.
func TestLedgerKeepsNothingForAnEphemeralSession(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	l := &fakeLedger{}
	s := newSession(t, SessionConfig{}, WithSubscriptionLedger(l))
	r, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: "gobridge-it/ledger/" + unique()}}})
	if err != nil {
		t.Fatal(err)
	}
	collect(t, r)
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "subscribed", func() bool { return s.Health(ctx).Subscribed })
	if got := l.only(); got != nil {
		t.Errorf("ledger holds %v for a session without session_expiry", got)
	}
}
