package servicebus

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/gobridge-oss/gobridge/transports/servicebus/sbemu"
)

// slowSender takes hold to accept each message and counts the sends it
// was asked for.
type slowSender struct {
	hold    time.Duration
	started atomic.Int64
	done    chan struct{}
}

func (s *slowSender) Send(ctx context.Context, _ ports.OutboundMessage) error {
	first := s.started.Add(1) == 1
	if !sleep(ctx, s.hold) {
		return ctx.Err()
	}
	if first {
		close(s.done)
	}
	return nil
}

// runRoute runs one route on the runtime until t ends.
func runRoute(t *testing.T, route runtime.Route) {
	t.Helper()
	rt, err := runtime.New([]runtime.Route{route}, runtime.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("runtime.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// Through the runtime: a message whose send takes 3x the queue's lock
// duration keeps its lock (the runtime's lease keeper calls Extend, which
// renews it), reaches the target once, is completed once, and is not
// handed out again.
func TestRuntimeKeepsTheLockWhileTheTargetIsSlow(t *testing.T) {
	itest.Short(t, "holds a message for 6s")
	const lock = 2 * time.Second
	e, cc := startEmulator(t, queue("in", lock))
	mem := telemetry.NewMemory()
	r, err := NewReceiver(newTestClient(t, cc), ReceiverConfig{Client: cc, Queue: "in"}, WithMaxInFlight(4), WithMeter(mem), WithName("in"))
	if err != nil {
		t.Fatal(err)
	}
	target := &slowSender{hold: 3 * lock, done: make(chan struct{})}
	runRoute(t, runtime.Route{ID: "r", Receiver: r,
		Policy:   runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
		Bindings: []runtime.Binding{{ID: "b", Sender: target}}})
	s, err := NewSender(newTestClient(t, cc), SenderConfig{Client: cc, Entity: "in"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(t.Context(), ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte("slow"))}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-target.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the message never reached the target")
	}
	completed := func() float64 { return mem.Value("gobridge_servicebus_settled_total", "in", outCompleted) }
	pollUntil(t, 5*time.Second, "the completion", func() bool { return completed() == 1 })
	// Watch for longer than a lock duration for a second delivery.
	sleep(t.Context(), lock+time.Second)
	counts, err := e.Counts(t.Context(), "in")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sbemu.Counts{}, counts); diff != "" {
		t.Errorf("queue counts (-want +got):\n%s", diff)
	}
	if n := target.started.Load(); n != 1 {
		t.Errorf("the target was asked to send the message %d times, want once", n)
	}
	if n := mem.Value("gobridge_servicebus_received_total", "in"); n != 1 {
		t.Errorf("received %v times, want once", n)
	}
	if n := mem.Value("gobridge_servicebus_lock_renewals_total", "in"); n < 3 {
		t.Errorf("%v lock renewals, want at least 3 over 3 lock durations", n)
	}
	if completed() != 1 || mem.Value("gobridge_servicebus_lock_lost_total", "in") != 0 {
		t.Errorf("completed %v, locks lost %v; want 1 and 0", completed(), mem.Value("gobridge_servicebus_lock_lost_total", "in"))
	}
}

// concurrencySender wraps a sender, taking hold per send, and records
// the most sends of distinct sessions that were under way at once.
type concurrencySender struct {
	ports.Sender
	hold time.Duration

	mu       sync.Mutex
	active   map[string]int
	maxDist  int
	sessions int
}

func (c *concurrencySender) Send(ctx context.Context, m ports.OutboundMessage) error {
	sid, _ := m.Envelope.HeaderString(HeaderSessionID)
	c.mu.Lock()
	c.active[sid]++
	c.maxDist = max(c.maxDist, len(c.active))
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.active[sid]--; c.active[sid] == 0 {
			delete(c.active, sid)
		}
		c.mu.Unlock()
	}()
	if !sleep(ctx, c.hold) {
		return ctx.Err()
	}
	return c.Sender.Send(ctx, m)
}

// Two sessions interleaved at the sender arrive at a session-enabled
// target in order within each session, with their session ids carried
// over, and the two are handled side by side.
func TestSessionsInOrderAndInParallel(t *testing.T) {
	const n = 20
	sess := func(name string) sbemu.Entity {
		return sbemu.Entity{Name: name, LockDuration: 5 * time.Second, MaxDeliveryCount: 10, RequiresSession: true}
	}
	_, cc := startEmulator(t, sess("in"), sess("out"))
	r, err := NewReceiver(newTestClient(t, cc), ReceiverConfig{Client: cc, Queue: "in", Sessions: true, MaxSessions: 4,
		SessionIdleTimeout: time.Second}, WithMaxInFlight(8))
	if err != nil {
		t.Fatal(err)
	}
	fwd, err := NewSender(newTestClient(t, cc), SenderConfig{Client: cc, Entity: "out", SessionIDHeader: HeaderSessionID})
	if err != nil {
		t.Fatal(err)
	}
	target := &concurrencySender{Sender: fwd, hold: 20 * time.Millisecond, active: map[string]int{}}
	// Publish first, then start the route, so that both sessions wait.
	in, err := NewSender(newTestClient(t, cc), SenderConfig{Client: cc, Entity: "in", SessionIDHeader: "sid"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		for _, sid := range []string{"A", "B"} {
			env := messaging.NewEnvelope("s", fmt.Appendf(nil, "%s-%02d", sid, i))
			env.SetHeader("sid", sid)
			if err := in.Send(t.Context(), ports.OutboundMessage{Envelope: env}); err != nil {
				t.Fatal(err)
			}
		}
	}
	runRoute(t, runtime.Route{ID: "r", Receiver: r, Policy: runtime.Policy{MaxInFlight: 8, OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
		Bindings: []runtime.Binding{{ID: "b", Sender: target}}})
	c := newTestClient(t, cc)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, sid := range []string{"A", "B"} {
		sr, err := c.AcceptSessionForQueue(ctx, "out", sid, nil)
		if err != nil {
			t.Fatalf("AcceptSessionForQueue %s: %v", sid, err)
		}
		var got, want []string
		for i := range n {
			want = append(want, fmt.Sprintf("%s-%02d", sid, i))
		}
		for len(got) < n {
			msgs, err := sr.ReceiveMessages(ctx, n, nil)
			if err != nil {
				t.Fatalf("session %s: %v after %v", sid, err, got)
			}
			for _, m := range msgs {
				got = append(got, string(m.Body))
				if m.SessionID == nil || *m.SessionID != sid {
					t.Errorf("message %s arrived in session %v", m.Body, m.SessionID)
				}
				if err := sr.CompleteMessage(ctx, m, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("session %s order (-sent +arrived):\n%s", sid, diff)
		}
		_ = sr.Close(ctx)
	}
	target.mu.Lock()
	defer target.mu.Unlock()
	if target.maxDist < 2 {
		t.Errorf("at most %d sessions were handled at once, want 2", target.maxDist)
	}
}

var _ = azservicebus.ReceiveModePeekLock

// The same with a session: the session keeper renews the session lock
// while the slow target holds its message, which reaches the target once
// and is completed once.
func TestRuntimeKeepsTheSessionLockWhileTheTargetIsSlow(t *testing.T) {
	itest.Short(t, "holds a message for 3s")
	const lock = time.Second
	e, cc := startEmulator(t, sbemu.Entity{Name: "in", LockDuration: lock, MaxDeliveryCount: 10, RequiresSession: true})
	mem := telemetry.NewMemory()
	r, err := NewReceiver(newTestClient(t, cc), ReceiverConfig{Client: cc, Queue: "in", Sessions: true}, WithMaxInFlight(4), WithMeter(mem), WithName("in"))
	if err != nil {
		t.Fatal(err)
	}
	target := &slowSender{hold: 3 * lock, done: make(chan struct{})}
	runRoute(t, runtime.Route{ID: "r", Receiver: r,
		Policy:   runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
		Bindings: []runtime.Binding{{ID: "b", Sender: target}}})
	s, err := NewSender(newTestClient(t, cc), SenderConfig{Client: cc, Entity: "in", SessionIDHeader: "sid"})
	if err != nil {
		t.Fatal(err)
	}
	env := messaging.NewEnvelope("s", []byte("slow"))
	env.SetHeader("sid", "only")
	if err := s.Send(t.Context(), ports.OutboundMessage{Envelope: env}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-target.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the message never reached the target")
	}
	completed := func() float64 { return mem.Value("gobridge_servicebus_settled_total", "in", outCompleted) }
	pollUntil(t, 5*time.Second, "the completion", func() bool { return completed() == 1 })
	sleep(t.Context(), 2*lock)
	counts, err := e.Counts(t.Context(), "in")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sbemu.Counts{}, counts); diff != "" {
		t.Errorf("queue counts (-want +got):\n%s", diff)
	}
	if n := target.started.Load(); n != 1 {
		t.Errorf("the target was asked to send the message %d times, want once", n)
	}
	if n := mem.Value("gobridge_servicebus_lock_renewals_total", "in"); n < 3 {
		t.Errorf("%v session lock renewals, want at least 3 over 3 lock durations", n)
	}
	if n := mem.Value("gobridge_servicebus_lock_lost_total", "in"); n != 0 {
		t.Errorf("%v locks lost", n)
	}
}
