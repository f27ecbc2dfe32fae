package mqtt

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// TestRouteRetriesInProcess runs a direct_hold route from an MQTT receiver
// to a memory sender that refuses the first message twice (transiently):
// the route retries through the receiver's in-process hold, and every
// message is delivered and acknowledged in the end.
func TestRouteRetriesInProcess(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	topic := "gobridge-it/route/" + unique()
	scfg := SessionConfig{ClientID: "route-" + unique(), SessionExpiry: 30 * time.Second}
	s := newSession(t, scfg)
	rcfg := ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: topic}}}
	if err := AdmitRoute(scfg, rcfg, RouteFacts{RouteID: "r", AllowRetryDrop: true}); err != nil {
		t.Fatal(err)
	}
	r, err := NewReceiver(s, rcfg)
	if err != nil {
		t.Fatal(err)
	}
	var refusals atomic.Int32
	out := memtransport.NewSender(memtransport.SenderOptions{Fail: func(m ports.OutboundMessage) error {
		if string(m.Envelope.PayloadView()) == "m-00000" && refusals.Add(1) <= 2 {
			return fault.ErrUnavailable.WithMessage("not yet")
		}
		return nil
	}})
	zero := 0.0
	rt, err := runtime.New([]runtime.Route{{ID: "r", ReceiverID: "mqtt-in", Receiver: r,
		Bindings: []runtime.Binding{{ID: "mem", Sender: out, Address: "sink"}},
		Policy: runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop,
			Backoff: runtime.Backoff{Initial: 10 * time.Millisecond, Max: 50 * time.Millisecond, Jitter: &zero}}}},
		runtime.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(rctx) }()
	defer func() { stop(); <-done }()
	waitFor(ctx, t, "the subscription", func() bool { return s.Health(ctx).Subscribed })

	snd, _ := NewSender(startSession(t, SessionConfig{}), SenderConfig{DefaultTopic: topic})
	// The first message alone: with nothing settled behind it, its retries
	// are held in the process (see TestPoisonMessageDoesNotStallTheSession
	// for the other case).
	for i := range 5 {
		if err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(i)}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := out.WaitSent(ctx, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := out.WaitSent(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if n := refusals.Load(); n != 3 {
		t.Errorf("the first message was offered %d times, want 3 (two refusals, then success)", n)
	}
	waitFor(ctx, t, "every acknowledgement", func() bool {
		s.acks.mu.Lock()
		defer s.acks.mu.Unlock()
		return s.acks.head == len(s.acks.order)
	})
}
