package mqtt

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// fakeOutbox records what a shared_outbox route persists. Persist waits
// until its context ends for the messages slow reports true for (a disk
// that has not answered yet when the process stops). Nothing is ever
// claimed: these tests are about the ingress side.
type fakeOutbox struct {
	slow func(payload string) bool

	mu        sync.Mutex
	persisted map[string]int
	waiting   int // Persist calls waiting for their context
}

func newFakeOutbox(slow func(string) bool) *fakeOutbox {
	return &fakeOutbox{slow: slow, persisted: map[string]int{}}
}

func (o *fakeOutbox) Persist(ctx context.Context, recs []ports.OutboxRecord) error {
	for _, r := range recs {
		if o.slow != nil && o.slow(string(r.Envelope.PayloadView())) {
			o.mu.Lock()
			o.waiting++
			o.mu.Unlock()
			<-ctx.Done()
			return ctx.Err()
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, r := range recs {
		o.persisted[string(r.Envelope.PayloadView())]++
	}
	return nil
}

func (o *fakeOutbox) Claim(context.Context, string, ports.LeaseToken, int) ([]ports.OutboxRecord, error) {
	return nil, nil
}
func (o *fakeOutbox) Complete(context.Context, string, ports.LeaseToken) error { return nil }
func (o *fakeOutbox) Replay(context.Context, string, ports.LeaseToken, error, time.Time) error {
	return nil
}
func (o *fakeOutbox) Depth(context.Context, string) (int, error) { return 0, nil }

func (o *fakeOutbox) payloads() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make(map[string]int, len(o.persisted))
	for k, v := range o.persisted {
		out[k] = v
	}
	return out
}

// runOutboxRoute runs one shared_outbox route from r into ob until the
// returned stop is called; stop waits for the runtime to end.
func runOutboxRoute(ctx context.Context, t *testing.T, r *Receiver, ob ports.OutboxStore) (stop func()) {
	t.Helper()
	rt, err := runtime.New([]runtime.Route{{ID: "r", ReceiverID: "mqtt-in", Receiver: r, DeliveryMode: runtime.SharedOutbox,
		Bindings: []runtime.Binding{{ID: "mem", Sender: memtransport.NewSender(memtransport.SenderOptions{}), Address: "sink"}},
		Policy:   runtime.Policy{MaxInFlight: 32}}},
		runtime.Options{Logger: quiet, DLQ: &fakeDLQ{}, Outbox: ob, StopTimeout: 200 * time.Millisecond})
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

// TestSharedOutboxStopLosesNothingOnResumingSession stops a shared_outbox
// route (the way SIGTERM does) while 15 of 20 QoS 1 messages are still
// being persisted. Its session resumes, as admission now demands for QoS
// 1/2 in either mode, so the next process with the same client id gets
// those 15 from the broker and persists them: every message is in the
// outbox once the two processes are done (duplicates allowed).
func TestSharedOutboxStopLosesNothingOnResumingSession(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	topic := "gobridge-it/outbox-stop/" + unique()
	cfg := SessionConfig{ClientID: "outbox-stop-" + unique(), SessionExpiry: time.Minute}
	rcfg := ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: topic}}}
	if err := AdmitRoute(cfg, rcfg, RouteFacts{RouteID: "r", DeliveryMode: ModeSharedOutbox, HasDLQ: true}); err != nil {
		t.Fatal(err)
	}
	const total, fast = 20, 5
	number := func(p string) int { n, _ := strconv.Atoi(strings.TrimPrefix(p, "m-")); return n }

	s1 := newSession(t, cfg)
	r1, err := NewReceiver(s1, rcfg)
	if err != nil {
		t.Fatal(err)
	}
	first := newFakeOutbox(func(p string) bool { return number(p) >= fast })
	stop1 := runOutboxRoute(ctx, t, r1, first)
	waitFor(ctx, t, "the subscription", func() bool { return s1.Health(ctx).Subscribed })
	snd, _ := NewSender(startSession(t, SessionConfig{}), SenderConfig{DefaultTopic: topic})
	for i := range total {
		if err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(i)}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(ctx, t, "the fast messages persisted", func() bool { return len(first.payloads()) == fast })
	waitFor(ctx, t, "the slow messages being persisted", func() bool {
		first.mu.Lock()
		defer first.mu.Unlock()
		return first.waiting == total-fast
	})
	stop1() // SIGTERM: the slow persists are cancelled, their messages left unsettled
	_ = r1.Close(ctx)
	if err := s1.Close(ctx); err != nil {
		t.Fatal(err)
	}

	s2 := newSession(t, cfg)
	r2, err := NewReceiver(s2, rcfg)
	if err != nil {
		t.Fatal(err)
	}
	second := newFakeOutbox(nil)
	runOutboxRoute(ctx, t, r2, second)
	waitFor(ctx, t, "the unpersisted messages persisted by the next process", func() bool {
		got := second.payloads()
		for i := fast; i < total; i++ {
			if got[string(numberedEnvelope(i).PayloadView())] == 0 {
				return false
			}
		}
		return true
	})
	all := first.payloads()
	for p := range second.payloads() {
		all[p]++
	}
	if len(all) != total {
		t.Errorf("%d distinct messages persisted in the two processes, want %d", len(all), total)
	}
}
