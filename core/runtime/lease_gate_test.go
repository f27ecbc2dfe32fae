package runtime_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// testGate hands out terms the test controls.
type testGate struct {
	mu      sync.Mutex
	term    *testTerm
	granted chan struct{} // closed and replaced when a term is granted
	held    atomic.Int32  // terms held and not released
}

func newTestGate() *testGate { return &testGate{granted: make(chan struct{})} }

func (g *testGate) Hold(ctx context.Context, _ string) (runtime.LeaseTerm, error) {
	for {
		g.mu.Lock()
		t, ch := g.term, g.granted
		g.mu.Unlock()
		if t != nil && !closedCh(t.lost) {
			g.held.Add(1)
			return t, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ch:
		}
	}
}

// grant starts a term with version v.
func (g *testGate) grant(v uint64) *testTerm { return g.grantValid(v, true) }

// grantValid grants a term that is valid or not from the start (a term
// made invalid after the grant may already have claimed a batch).
func (g *testGate) grantValid(v uint64, valid bool) *testTerm {
	t := &testTerm{g: g, tok: ports.LeaseToken{Owner: "me", Version: v}, lost: make(chan struct{})}
	t.valid.Store(valid)
	t.ctx, t.cancel = context.WithCancel(context.Background())
	g.mu.Lock()
	g.term = t
	close(g.granted)
	g.granted = make(chan struct{})
	g.mu.Unlock()
	return t
}

type testTerm struct {
	g      *testGate
	tok    ports.LeaseToken
	lost   chan struct{}
	valid  atomic.Bool
	ctx    context.Context
	cancel context.CancelFunc
}

func (t *testTerm) Token() ports.LeaseToken  { return t.tok }
func (t *testTerm) Lost() <-chan struct{}    { return t.lost }
func (t *testTerm) Context() context.Context { return t.ctx }
func (t *testTerm) Valid() bool              { return t.valid.Load() && !closedCh(t.lost) }
func (t *testTerm) Release()                 { t.g.held.Add(-1) }

// lose steps the term down.
func (t *testTerm) lose() {
	close(t.lost)
	t.cancel()
}

func closedCh(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// tokenOutbox records the token of every guarded write.
type tokenOutbox struct {
	*fakeOutbox
	mu     sync.Mutex
	claims []uint64 // versions of the claims that returned records
	writes []uint64 // versions of completes and replays
}

func (o *tokenOutbox) Claim(ctx context.Context, part string, tok ports.LeaseToken, limit int) ([]ports.OutboxRecord, error) {
	recs, err := o.fakeOutbox.Claim(ctx, part, tok, limit)
	if len(recs) > 0 {
		o.mu.Lock()
		o.claims = append(o.claims, tok.Version)
		o.mu.Unlock()
	}
	return recs, err
}

func (o *tokenOutbox) Complete(ctx context.Context, id string, tok ports.LeaseToken) error {
	o.mu.Lock()
	o.writes = append(o.writes, tok.Version)
	o.mu.Unlock()
	return o.fakeOutbox.Complete(ctx, id, tok)
}

func (o *tokenOutbox) versions() (claims, writes []uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return uniq(o.claims), uniq(o.writes)
}

func uniq(vs []uint64) []uint64 {
	var out []uint64
	for _, v := range vs {
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

// waitFor polls cond until it holds or the test's wait ends.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx := waitCtx(t)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

func TestLeasedDrainerDrainsOnlyWhileHolding(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := memtransport.NewSender(memtransport.SenderOptions{})
	ob := &tokenOutbox{fakeOutbox: newFakeOutbox()}
	gate := newTestGate()
	meter := telemetry.NewMemory()
	start(t, []runtime.Route{outboxRoute(recv, snd, runtime.Policy{})},
		runtime.Options{DLQ: newMemDLQ(), Outbox: ob, LeaseGate: gate, Meter: meter})
	send := func(from, n int) {
		envs := make([]*messaging.Envelope, n)
		for i := range envs {
			envs[i] = messaging.NewEnvelope("s", fmt.Appendf(nil, "%d", from+i))
		}
		publish(t, recv, envs...)
	}
	role := func(r string) float64 { return meter.Value("gobridge_lease_role", "ob", "b", r) }

	// A standby persists (the source is acked) and sends nothing.
	send(0, 5)
	if err := recv.WaitAcked(waitCtx(t), 5); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "standby role", func() bool { return role("standby") == 1 })
	if n := snd.Count(); n != 0 {
		t.Fatalf("a standby sent %d messages", n)
	}

	// Holding the lease, it drains under the term's token.
	first := gate.grant(7)
	if err := snd.WaitSent(waitCtx(t), 5); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "active role", func() bool { return role("active") == 1 })

	// Stepped down, it stops and gives the term back; what comes in
	// meanwhile waits for the next holder.
	first.lose()
	waitFor(t, "the term released", func() bool { return gate.held.Load() == 0 })
	waitFor(t, "standby role again", func() bool { return role("standby") == 1 })
	send(5, 5)
	if err := recv.WaitAcked(waitCtx(t), 10); err != nil {
		t.Fatal(err)
	}
	if n := snd.Count(); n != 5 {
		t.Fatalf("sent %d messages after the step-down, want the 5 sent before", n)
	}

	// A term that is no longer valid (a paused process woke up) claims
	// nothing either.
	second := gate.grantValid(8, false)
	waitFor(t, "a skipped claim", func() bool { return meter.Count("gobridge_outbox_lease_skipped_total", "ob", "b") > 0 })
	if n := snd.Count(); n != 5 {
		t.Fatalf("an invalid term sent %d messages, want none", n-5)
	}
	second.valid.Store(true)
	if err := snd.WaitSent(waitCtx(t), 10); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the outbox empty", func() bool { return ob.len() == 0 })
	claims, writes := ob.versions()
	if diff := cmp.Diff([]uint64{7, 8}, claims); diff != "" {
		t.Errorf("claim token versions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint64{7, 8}, writes); diff != "" {
		t.Errorf("complete token versions (-want +got):\n%s", diff)
	}
}

// replayCountingOutbox counts replays.
type replayCountingOutbox struct {
	*tokenOutbox
	replays atomic.Int32
}

func (o *replayCountingOutbox) Replay(ctx context.Context, id string, tok ports.LeaseToken, cause error, next time.Time) error {
	o.replays.Add(1)
	return o.tokenOutbox.Replay(ctx, id, tok, cause, next)
}

// TestSteppedDownDrainerLeavesItsBatchClaimed: when the step-down grace
// ends with a send still in progress, the record is neither completed,
// replayed nor dead-lettered: it stays claimed for the lease's next
// holder.
func TestSteppedDownDrainerLeavesItsBatchClaimed(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := newGateSender()
	ob := &replayCountingOutbox{tokenOutbox: &tokenOutbox{fakeOutbox: newFakeOutbox()}}
	dlq := newMemDLQ()
	gate := newTestGate()
	start(t, []runtime.Route{outboxRoute(recv, snd, runtime.Policy{})},
		runtime.Options{DLQ: dlq, Outbox: ob, LeaseGate: gate})
	term := gate.grant(3)
	publish(t, recv, messaging.NewEnvelope("s", []byte("x")))
	snd.waitEntered(t, 1)
	term.lose() // the grace is over while the send hangs
	waitFor(t, "the term released", func() bool { return gate.held.Load() == 0 })
	if n := ob.len(); n != 1 {
		t.Fatalf("outbox holds %d records, want the 1 in hand", n)
	}
	fo := ob.fakeOutbox
	fo.mu.Lock()
	claimed := false
	for _, r := range fo.recs {
		claimed = r.claimed
	}
	fo.mu.Unlock()
	if !claimed {
		t.Error("the record in hand was released; it must stay claimed for the next holder")
	}
	if n := ob.replays.Load(); n != 0 {
		t.Errorf("%d replays after the step-down, want none", n)
	}
	if n := len(dlq.all()); n != 0 {
		t.Errorf("%d dead letters after the step-down, want none", n)
	}
}
