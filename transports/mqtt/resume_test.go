package mqtt

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestUnpersistedMessagesComeBackAfterStop plays a shared_outbox route
// stopped mid-stream: of 20 QoS 1 messages the route "persisted" (and so
// acknowledged) 5, and was still working on the other 15 when the process
// stopped. On a resuming session the broker sends those 15 again to the
// next process with the same client id; on a session that ends with its
// connection they are gone, which is why admission refuses that
// combination for QoS 1/2 in both delivery modes.
func TestUnpersistedMessagesComeBackAfterStop(t *testing.T) {
	requireBroker(t)
	tests := []struct {
		name     string
		expiry   time.Duration
		wantBack int
	}{
		{"resuming session", time.Minute, 15},
		{"session ending with the connection", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			topic := "gobridge-it/resume/" + unique()
			cfg := SessionConfig{ClientID: "resume-" + unique(), SessionExpiry: tt.expiry}
			const total, persisted = 20, 5

			first := newSession(t, cfg)
			r1, err := NewReceiver(first, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: topic}}})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			seen := 0
			runCtx, stopRun := context.WithCancel(ctx)
			runDone := make(chan error, 1)
			go func() {
				runDone <- r1.Run(runCtx, func(_ context.Context, d ports.Delivery) error {
					mu.Lock()
					defer mu.Unlock()
					seen++
					if seen <= persisted {
						return d.Ack(ctx)
					}
					return nil // still being persisted when the process stops
				})
			}()
			waitFor(ctx, t, "the subscription", func() bool { return first.Health(ctx).Subscribed })
			snd, _ := NewSender(startSession(t, SessionConfig{}), SenderConfig{DefaultTopic: topic})
			for i := range total {
				if err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(i)}); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(ctx, t, "every message handed to the route", func() bool { mu.Lock(); defer mu.Unlock(); return seen == total })
			stopRun()
			<-runDone
			_ = r1.Close(ctx)
			if err := first.Close(ctx); err != nil {
				t.Fatal(err)
			}

			// The next process: same client id, not a clean start.
			second := newSession(t, cfg)
			r2, err := NewReceiver(second, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: topic}}})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			marker := make(chan struct{})
			run2Ctx, stopRun2 := context.WithCancel(ctx)
			run2Done := make(chan struct{})
			defer func() { stopRun2(); <-run2Done }()
			go func() {
				defer close(run2Done)
				_ = r2.Run(run2Ctx, func(_ context.Context, d ports.Delivery) error {
					p := string(d.Envelope().PayloadView())
					mu.Lock()
					defer mu.Unlock()
					if p == "marker" {
						close(marker)
					} else {
						got[p] = true
					}
					return d.Ack(ctx)
				})
			}()
			waitFor(ctx, t, "the second subscription", func() bool { return second.Health(ctx).Subscribed })
			// The broker resends a resumed session's messages first, so
			// once the marker arrives everything that comes back has.
			env := numberedEnvelope(0)
			env.SetPayload([]byte("marker"))
			if err := snd.Send(ctx, ports.OutboundMessage{Envelope: env}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-marker:
			case <-ctx.Done():
				t.Fatal("the marker did not arrive")
			}
			if tt.wantBack > 0 {
				waitFor(ctx, t, "the unpersisted messages", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) >= tt.wantBack })
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != tt.wantBack {
				t.Errorf("%d messages came back, want %d: %v", len(got), tt.wantBack, got)
			}
			for i := persisted; i < total && tt.wantBack > 0; i++ {
				if p := string(numberedEnvelope(i).PayloadView()); !got[p] {
					t.Errorf("%s did not come back", p)
				}
			}
		})
	}
}
