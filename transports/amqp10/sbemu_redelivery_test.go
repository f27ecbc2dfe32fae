package amqp10

import (
	"context"
	"sync"
	"testing"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// collect runs r until the test ends and returns the deliveries it hands
// over.
func collect(ctx context.Context, t *testing.T, r *Receiver) *collected {
	t.Helper()
	c := &collected{t: t, ctx: ctx, ch: make(chan ports.Delivery, 16)}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() {
		ran <- r.Run(runCtx, func(_ context.Context, d ports.Delivery) error { c.ch <- d; return nil })
	}()
	t.Cleanup(func() { stop(); <-ran })
	return c
}

// collected is what collect hands over.
type collected struct {
	t   *testing.T
	ctx context.Context
	ch  chan ports.Delivery
}

// next waits for the next delivery.
func (c *collected) next() ports.Delivery {
	c.t.Helper()
	select {
	case d := <-c.ch:
		return d
	case <-c.ctx.Done():
		c.t.Fatal("no delivery arrived")
		return nil
	}
}

// none returns a delivery that arrives within quiet, or nil.
func (c *collected) none(quiet time.Duration) ports.Delivery {
	t := time.NewTimer(quiet)
	defer t.Stop()
	select {
	case d := <-c.ch:
		return d
	case <-t.C:
		return nil
	}
}

func countOf(t *testing.T, d ports.Delivery) (int, bool) {
	t.Helper()
	return d.(ports.RedeliveryCounter).RedeliveryCount()
}

// TestSbemuModifiedRedeliversOnTheSameLink: with the default retry mode,
// Retry disposes the delivery modified with delivery-failed; the peer
// takes it (no detach: one attach in all) and redelivers the message on
// the same link with delivery-count 1, then 2, which the delivery reports
// as its redelivery count and under amqp10.delivery-count.
func TestSbemuModifiedRedeliversOnTheSameLink(t *testing.T) {
	p := sbemuPeer(t, sbemuQueue{name: "orders", lock: 10 * time.Second})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := newRawClient(t, p).publish(ctx, "orders", messaging.NewEnvelope("orders.created", []byte("again"))); err != nil {
		t.Fatal(err)
	}
	m := telemetry.NewMemory()
	r, err := NewReceiver(newTestSession(t, p), ReceiverConfig{Address: "orders"}, WithMaxInFlight(5), WithName("r"), WithMeter(m))
	if err != nil {
		t.Fatal(err)
	}
	if r.cfg.Retry != RetryModified {
		t.Fatalf("default retry mode %q, want modified", r.cfg.Retry)
	}
	deliveries := collect(ctx, t, r)
	next := deliveries.next
	d := next()
	id := d.Envelope().ID
	for want := range 3 {
		if want > 0 {
			d = next()
		}
		n, known := countOf(t, d)
		if n != want || !known {
			t.Fatalf("delivery %d: redelivery count %d (known %v), want %d (known)", want+1, n, known, want)
		}
		if got := d.Envelope().Headers[HeaderDeliveryCount]; got != int64(want) {
			t.Errorf("delivery %d: %s = %#v, want %d", want+1, HeaderDeliveryCount, got, want)
		}
		if d.Envelope().ID != id || string(d.Envelope().PayloadView()) != "again" {
			t.Errorf("delivery %d: ID %q payload %q, want %q %q", want+1, d.Envelope().ID, d.Envelope().PayloadView(), id, "again")
		}
		if want < 2 {
			if err := d.Retry(ctx, 0, nil); err != nil {
				t.Fatalf("Retry: %v", err)
			}
		}
	}
	if err := d.Ack(ctx); err != nil {
		t.Fatalf("Ack: %v", err)
	}
	waitStats(ctx, t, p, "orders", func(c sbemuCounts) bool { return c == sbemuCounts{} })
	for _, c := range []struct {
		name  string
		label []string
		want  float64
	}{
		{"gobridge_amqp10_receiver_attaches_total", []string{"r"}, 1},
		{"gobridge_amqp10_dispositions_total", []string{"r", dispModified}, 2},
		{"gobridge_amqp10_dispositions_total", []string{"r", dispAccepted}, 1},
	} {
		if got := m.Value(c.name, c.label...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.label, got, c.want)
		}
	}
}

// TestSbemuAttemptNumberFollowsDeliveryCount runs a route whose only
// destination always fails transiently over a message the peer has
// already counted twice (a plain go-amqp client disposed it modified
// twice). The runtime takes delivery-count + 1 as the attempt number: the
// backoff starts at attempt 3 rather than 1 and grows with each
// redelivery, and the DLQ entry written once the route's three replay
// attempts are spent says 5 attempts, where the bridge itself saw three.
func TestSbemuAttemptNumberFollowsDeliveryCount(t *testing.T) {
	const (
		initial  = 150 * time.Millisecond
		attempts = 3
	)
	p := sbemuPeer(t, sbemuQueue{name: "orders", lock: 10 * time.Second})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	raw := newRawClient(t, p)
	if err := raw.publish(ctx, "orders", messaging.NewEnvelope("orders.created", []byte("poison"))); err != nil {
		t.Fatal(err)
	}
	ageBy(ctx, t, raw, "orders", 2)

	recv, err := NewReceiver(newTestSession(t, p), ReceiverConfig{Address: "orders"}, WithMaxInFlight(1))
	if err != nil {
		t.Fatal(err)
	}
	rec := &timingReceiver{Receiver: recv}
	dlq := &recordingDLQ{}
	zero := 0.0
	rt, err := runtime.New([]runtime.Route{{
		ID: "aged", ReceiverID: "src", Receiver: rec, DeliveryMode: runtime.DirectHold,
		Bindings: []runtime.Binding{{ID: "dst", Sender: &poisonSender{}}}, // fails "poison" every time
		Policy: runtime.Policy{MaxInFlight: 1, SendTimeout: 5 * time.Second, MaxReplayAttempts: attempts, ReplayBudget: time.Millisecond,
			Backoff: runtime.Backoff{Initial: initial, Max: 10 * time.Second, Multiplier: 2, Jitter: &zero}},
	}}, runtime.Options{DLQ: dlq, StopTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(runCtx) }()
	entries := dlq.wait(ctx, t, 1)
	stop()
	if err := <-done; err != nil {
		t.Fatalf("runtime: %v", err)
	}

	seen := rec.seen()
	var counts []int
	for _, s := range seen {
		counts = append(counts, s.count)
	}
	if len(counts) != attempts || counts[0] != 2 || counts[1] != 3 || counts[2] != 4 {
		t.Fatalf("delivery counts %v, want [2 3 4]", counts)
	}
	for i := 1; i < len(seen); i++ {
		// Attempt count+1 of the previous delivery waited Initial*2^(count).
		want := initial << seen[i-1].count
		gap := seen[i].at.Sub(seen[i-1].at)
		t.Logf("count %d -> %d after %v (backoff of attempt %d: %v)", seen[i-1].count, seen[i].count, gap, seen[i-1].count+1, want)
		if gap < want || gap > want+2*time.Second {
			t.Errorf("redelivery %d came %v after the one before; the backoff of attempt %d is %v", i, gap, seen[i-1].count+1, want)
		}
	}
	if e := entries[0]; e.Attempts != 5 || e.Category != ports.DLQMaxRetries {
		t.Errorf("DLQ entry: %d attempts, category %q; want 5 (delivery-count 4 + 1), %q", e.Attempts, e.Category, ports.DLQMaxRetries)
	}
	waitStats(ctx, t, p, "orders", func(c sbemuCounts) bool { return c == sbemuCounts{} })
}

// ageBy has a plain go-amqp receiver take the message at the head of addr
// and dispose it modified with delivery-failed n times, checking that the
// peer counts each one, and leaves it queued.
func ageBy(ctx context.Context, t *testing.T, raw *rawClient, addr string, n int) {
	t.Helper()
	r, err := raw.sess.NewReceiver(ctx, addr, &amqp.ReceiverOptions{Credit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close(ctx) }()
	for i := range n {
		if err := r.IssueCredit(1); err != nil {
			t.Fatal(err)
		}
		m, err := r.Receive(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Header == nil || int(m.Header.DeliveryCount) != i {
			t.Fatalf("raw receive %d: header %+v, want delivery-count %d", i+1, m.Header, i)
		}
		if err := r.ModifyMessage(ctx, m, &amqp.ModifyMessageOptions{DeliveryFailed: true}); err != nil {
			t.Fatal(err)
		}
	}
}

// timingReceiver records when each delivery arrived and its count.
type timingReceiver struct {
	*Receiver
	mu  sync.Mutex
	got []arrival
}

type arrival struct {
	at    time.Time
	count int
}

func (r *timingReceiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	return r.Receiver.Run(ctx, func(ctx context.Context, d ports.Delivery) error {
		n, _ := d.(ports.RedeliveryCounter).RedeliveryCount()
		r.mu.Lock()
		r.got = append(r.got, arrival{at: time.Now(), count: n})
		r.mu.Unlock()
		return emit(ctx, d)
	})
}

func (r *timingReceiver) seen() []arrival {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]arrival(nil), r.got...)
}

// recordingDLQ keeps the entries the bridge writes to its own DLQ.
type recordingDLQ struct {
	mu      sync.Mutex
	entries []ports.DLQEntry
	added   chan struct{}
	once    sync.Once
}

func (d *recordingDLQ) Write(_ context.Context, e ports.DLQEntry) error {
	d.once.Do(func() { d.added = make(chan struct{}, 64) })
	d.mu.Lock()
	d.entries = append(d.entries, e)
	d.mu.Unlock()
	select {
	case d.added <- struct{}{}:
	default:
	}
	return nil
}

// wait returns the entries once there are at least n.
func (d *recordingDLQ) wait(ctx context.Context, t *testing.T, n int) []ports.DLQEntry {
	t.Helper()
	d.once.Do(func() { d.added = make(chan struct{}, 64) })
	for {
		d.mu.Lock()
		got := append([]ports.DLQEntry(nil), d.entries...)
		d.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-d.added:
		case <-ctx.Done():
			t.Fatalf("the bridge's DLQ holds %d entries, want %d", len(got), n)
		}
	}
}
