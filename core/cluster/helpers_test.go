package cluster

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// fakeLeases is a lease store on a clock, with injected renewal failures.
type fakeLeases struct {
	clk ports.Clock

	mu       sync.Mutex
	leases   map[string]ports.Lease
	released map[string]bool
	renewErr []error // returned by the next renewals, in order
	calls    map[string]int
}

func newFakeLeases(clk ports.Clock) *fakeLeases {
	return &fakeLeases{clk: clk, leases: map[string]ports.Lease{}, released: map[string]bool{}, calls: map[string]int{}}
}

func (s *fakeLeases) Acquire(_ context.Context, key, owner string, ttl time.Duration) (ports.LeaseToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["acquire"]++
	cur, ok := s.leases[key]
	now := s.clk.Now()
	if ok && !s.released[key] && now.Before(cur.ExpiresAt) && cur.Token.Owner != owner {
		return ports.LeaseToken{}, fault.ErrAlreadyExists.WithMessage("held by " + cur.Token.Owner)
	}
	tok := ports.LeaseToken{Owner: owner, Version: cur.Token.Version + 1}
	s.leases[key] = ports.Lease{Key: key, Token: tok, ExpiresAt: now.Add(ttl)}
	s.released[key] = false
	return tok, nil
}

func (s *fakeLeases) Renew(_ context.Context, key string, tok ports.LeaseToken, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["renew"]++
	if len(s.renewErr) > 0 {
		err := s.renewErr[0]
		s.renewErr = s.renewErr[1:]
		if err != nil {
			return err
		}
	}
	cur := s.leases[key]
	if cur.Token != tok || s.released[key] {
		return fault.ErrStaleFencingToken.WithMessage("not current")
	}
	cur.ExpiresAt = s.clk.Now().Add(ttl)
	s.leases[key] = cur
	return nil
}

func (s *fakeLeases) Release(_ context.Context, key string, tok ports.LeaseToken) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["release"]++
	if s.leases[key].Token != tok || s.released[key] {
		return fault.ErrStaleFencingToken.WithMessage("not current")
	}
	s.released[key] = true
	return nil
}

func (s *fakeLeases) Read(_ context.Context, key string) (ports.Lease, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.leases[key]
	return l, ok, nil
}

// failRenewals makes the next renewals return errs.
func (s *fakeLeases) failRenewals(errs ...error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.renewErr = append(s.renewErr, errs...)
}

// count returns how many calls of op the store answered.
func (s *fakeLeases) count(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}

// testTiming is a cadence with round numbers: renew every second, step
// down after three failures, two seconds of grace.
var testTiming = Timing{TTL: 6 * time.Second, RenewInterval: time.Second, RenewCallTimeout: 500 * time.Millisecond,
	MaxRenewFails: 3, StepDownGrace: 2 * time.Second, AcquirePollInterval: time.Second}

// rig is a running manager on a fake clock and store.
type rig struct {
	t     *testing.T
	clk   *clock.Fake
	store *fakeLeases
	mgr   *Manager
	meter *telemetry.Memory
	stop  context.CancelFunc
	done  chan struct{}
}

func newRig(t *testing.T, owner string, clk *clock.Fake, store *fakeLeases) *rig {
	t.Helper()
	meter := telemetry.NewMemory()
	m, err := New(Config{Key: "session/s1", Owner: owner, Store: store, Timing: testTiming, Clock: clk,
		Logger: slog.New(slog.DiscardHandler), Meter: meter, Rand: func() float64 { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &rig{t: t, clk: clk, store: store, mgr: m, meter: meter, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		_ = m.Run(ctx)
	}()
	t.Cleanup(r.shutdown)
	return r
}

// shutdown stops the manager, moving the clock through the grace.
func (r *rig) shutdown() {
	r.stop()
	for {
		select {
		case <-r.done:
			return
		case <-time.After(time.Millisecond):
			r.clk.Advance(testTiming.StepDownGrace)
		}
	}
}

// waitState waits until the manager is in want.
func (r *rig) waitState(want State) {
	r.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		ch := r.mgr.Changed()
		if got := r.mgr.State(); got == want {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			r.t.Fatalf("state is %s, want %s", r.mgr.State(), want)
		}
	}
}

// tick waits until the manager waits on a timer, then moves the clock by d.
func (r *rig) tick(d time.Duration) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.clk.WaitForTimers(ctx, 1); err != nil {
		r.t.Fatalf("no timer armed: %v (state %s)", err, r.mgr.State())
	}
	r.clk.Advance(d)
}

// hold takes the term, failing the test when it does not come.
func (r *rig) hold() *Term {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t, err := r.mgr.Hold(ctx)
	if err != nil {
		r.t.Fatalf("hold: %v (state %s)", err, r.mgr.State())
	}
	return t
}

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// waitCalls waits until the store answered n calls of op.
func (r *rig) waitCalls(op string, n int) {
	r.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for r.store.count(op) < n {
		if time.Now().After(deadline) {
			r.t.Fatalf("%s calls = %d, want %d", op, r.store.count(op), n)
		}
		<-tick.C
	}
}

// waitLost waits until t's step-down began.
func (r *rig) waitLost(t *Term) {
	r.t.Helper()
	select {
	case <-t.Lost():
	case <-time.After(5 * time.Second):
		r.t.Fatalf("the term was not lost (state %s)", r.mgr.State())
	}
}
