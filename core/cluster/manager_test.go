package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestNewRefusesIncompleteConfig(t *testing.T) {
	store := newFakeLeases(clock.NewFake(epoch))
	bad := testTiming
	bad.MaxRenewFails = 0
	for name, cfg := range map[string]Config{
		"no key":        {Owner: "a", Store: store, Timing: testTiming},
		"no owner":      {Key: "k", Store: store, Timing: testTiming},
		"no store":      {Key: "k", Owner: "a", Timing: testTiming},
		"zero ttl":      {Key: "k", Owner: "a", Store: store, Timing: Timing{}},
		"no renew fail": {Key: "k", Owner: "a", Store: store, Timing: bad},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := New(cfg); fault.CodeOf(err) != fault.CodeInvalidConfig {
				t.Fatalf("New = %v, want INVALID_CONFIG", err)
			}
		})
	}
}

func TestAcquireAndRenew(t *testing.T) {
	clk := clock.NewFake(epoch)
	r := newRig(t, "a", clk, newFakeLeases(clk))
	term := r.hold()
	defer term.Release()
	if diff := cmp.Diff(ports.LeaseToken{Owner: "a", Version: 1}, term.Token()); diff != "" {
		t.Fatalf("token (-want +got):\n%s", diff)
	}
	for i := range 10 {
		r.tick(testTiming.RenewInterval)
		r.waitCalls("renew", i+1)
		r.waitState(Active)
	}
	if got := r.store.count("renew"); got != 10 {
		t.Fatalf("renewals = %d, want 10", got)
	}
	if !term.Valid() || closed(term.Lost()) {
		t.Fatal("the term of a lease renewed on time is not valid")
	}
	if got := r.meter.Value("gobridge_lease_held", "session/s1"); got != 1 {
		t.Fatalf("gobridge_lease_held = %v, want 1", got)
	}
}

func TestStepDown(t *testing.T) {
	transient := fault.ErrUnavailable.WithMessage("store down")
	for _, tc := range []struct {
		name      string
		renewErrs []error
		// renewals the manager makes before it steps down
		renewals int
		reason   string
		released bool // whether the lease was given back to the store
	}{
		{"renewals fail max_renew_fails times", []error{transient, transient, transient}, 3, reasonRenewFailed, true},
		{"one failure short keeps the lease", []error{transient, transient, nil, transient, transient}, 0, "", false},
		{"stale token steps down at once", []error{fault.ErrStaleFencingToken}, 1, reasonStale, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewFake(epoch)
			store := newFakeLeases(clk)
			r := newRig(t, "a", clk, store)
			term := r.hold()
			store.failRenewals(tc.renewErrs...)
			if tc.renewals == 0 {
				for i, err := range tc.renewErrs {
					r.tick(testTiming.RenewInterval)
					if err == nil {
						// A renewal that succeeds is Renewing only
						// for the length of the call: wait for its end.
						r.waitCalls("renew", i+1)
						r.waitState(Active)
						continue
					}
					r.waitState(Renewing)
				}
				r.tick(testTiming.RenewInterval)
				r.waitState(Active)
				if closed(term.Lost()) {
					t.Fatal("the term was lost although renewals recovered in time")
				}
				term.Release()
				return
			}
			for range tc.renewals {
				r.tick(testTiming.RenewInterval)
			}
			r.waitLost(term)
			if !closed(term.Lost()) || term.Valid() {
				t.Fatal("stepping down, but the term is neither lost nor invalid")
			}
			if tc.reason != reasonStale && term.Context().Err() != nil {
				t.Fatal("the term's context ended before the grace")
			}
			term.Release() // the holder finished its in-flight work
			r.waitState(Idle)
			if term.Context().Err() == nil {
				t.Fatal("the term's context outlived the step-down")
			}
			if got := r.store.count("release") == 1; got != tc.released {
				t.Fatalf("released = %v, want %v", got, tc.released)
			}
			if got := r.meter.Count("gobridge_lease_step_downs_total", "session/s1", tc.reason); got != 1 {
				t.Fatalf("step-downs for %s = %d, want 1", tc.reason, got)
			}
			if got := r.meter.Value("gobridge_lease_held", "session/s1"); got != 0 {
				t.Fatalf("gobridge_lease_held = %v after step-down, want 0", got)
			}
		})
	}
}

func TestReacquireAfterStepDown(t *testing.T) {
	clk := clock.NewFake(epoch)
	store := newFakeLeases(clk)
	r := newRig(t, "a", clk, store)
	first := r.hold()
	first.Release()
	boom := fault.ErrUnavailable.WithMessage("store down")
	store.failRenewals(boom, boom, boom)
	for range 3 {
		r.tick(testTiming.RenewInterval)
	}
	r.waitState(Idle)
	r.tick(testTiming.AcquirePollInterval)
	second := r.hold()
	defer second.Release()
	if second.Token().Version <= first.Token().Version {
		t.Fatalf("reacquired version %d, not above %d", second.Token().Version, first.Token().Version)
	}
}

func TestGraceBoundsSlowHolders(t *testing.T) {
	clk := clock.NewFake(epoch)
	store := newFakeLeases(clk)
	r := newRig(t, "a", clk, store)
	term := r.hold()
	defer term.Release()
	r.mgr.StepDown()
	r.waitState(SteppingDown)
	if term.Context().Err() != nil {
		t.Fatal("in-flight work cancelled before the grace")
	}
	r.tick(testTiming.StepDownGrace)
	r.waitState(Idle)
	if !errors.Is(term.Context().Err(), context.Canceled) {
		t.Fatalf("term context = %v after the grace, want cancelled", term.Context().Err())
	}
}

func TestStandbyTakesOverWhenTheOwnerDies(t *testing.T) {
	clk := clock.NewFake(epoch)
	store := newFakeLeases(clk)
	// The dead owner took the lease and never renews it.
	if _, err := store.Acquire(context.Background(), "session/s1", "dead", testTiming.TTL); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, "b", clk, store)
	r.waitCalls("acquire", 2) // the dead owner's, then this one's first try
	polls := int(testTiming.TTL / testTiming.AcquirePollInterval)
	for i := 1; i < polls; i++ {
		r.tick(testTiming.AcquirePollInterval)
		r.waitCalls("acquire", 2+i)
		r.waitState(Idle)
	}
	r.tick(testTiming.AcquirePollInterval) // now the lease has expired
	term := r.hold()
	defer term.Release()
	if diff := cmp.Diff(ports.LeaseToken{Owner: "b", Version: 2}, term.Token()); diff != "" {
		t.Fatalf("token (-want +got):\n%s", diff)
	}
}

// A paused process (SIGSTOP, a long GC) wakes long after its lease ran
// out: its term must be invalid before its renewal loop has even run.
func TestPausedHolderIsInvalidOnWake(t *testing.T) {
	clk := clock.NewFake(epoch)
	store := newFakeLeases(clk)
	r := newRig(t, "a", clk, store)
	term := r.hold()
	defer term.Release()
	until := term.ValidUntil()
	if want := epoch.Add(testTiming.TTL - testTiming.safetyMargin()); !until.Equal(want) {
		t.Fatalf("valid until %v, want %v", until, want)
	}
	// Another owner takes over while this one sleeps. The renewal timer
	// fires too; that overdue renewal fails, so that it cannot extend the
	// term whenever it runs.
	store.failRenewals(fault.ErrUnavailable.WithMessage("store down"))
	// r.tick waits for the renewal timer first: the manager arms it after
	// Hold returned, and a clock advanced before that would leave the
	// timer due a whole interval after the jump, never firing.
	r.tick(testTiming.TTL + time.Second)
	if term.Valid() {
		t.Fatal("the term is valid after its lease expired")
	}
	if _, err := store.Acquire(context.Background(), "session/s1", "b", testTiming.TTL); err != nil {
		t.Fatal(err)
	}
	r.waitCalls("renew", 1)
	r.tick(testTiming.RenewInterval)
	r.waitState(Idle) // the next renewal meets the stale token
	if !closed(term.Lost()) {
		t.Fatal("the term survived a stale renewal")
	}
	if got := r.store.count("release"); got != 0 {
		t.Fatalf("a stale owner released the lease %d times", got)
	}
}

func TestStopReleasesTheLease(t *testing.T) {
	clk := clock.NewFake(epoch)
	store := newFakeLeases(clk)
	r := newRig(t, "a", clk, store)
	term := r.hold()
	term.Release()
	r.stop()
	<-r.done
	if got := store.count("release"); got != 1 {
		t.Fatalf("releases = %d, want 1", got)
	}
	if err := r.mgr.Run(context.Background()); fault.CodeOf(err) != fault.CodeInvalidConfig {
		t.Fatalf("second Run = %v, want INVALID_CONFIG", err)
	}
}

func TestHoldEndsWithItsContext(t *testing.T) {
	clk := clock.NewFake(epoch)
	store := newFakeLeases(clk)
	if _, err := store.Acquire(context.Background(), "session/s1", "other", time.Hour); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, "a", clk, store)
	r.waitState(Idle)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.mgr.Hold(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Hold = %v, want context.Canceled", err)
	}
}

// TestRequestedStepDownLetsAStandbyIn: an operator's step-down hands the
// lease over, so the instance must not win it straight back: it stays out
// of the acquire race for two acquire polls (a standby polls within one),
// then competes again.
func TestRequestedStepDownLetsAStandbyIn(t *testing.T) {
	clk := clock.NewFake(epoch)
	store := newFakeLeases(clk)
	r := newRig(t, "a", clk, store)
	term := r.hold()
	term.Release()
	r.waitCalls("acquire", 1)
	r.mgr.StepDown()
	r.waitState(Idle) // sitting out, not acquiring at once
	r.tick(testTiming.AcquirePollInterval)
	// One poll later the manager has armed its next timer: still out of
	// the race, where before the pause it had taken the lease back.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := clk.WaitForTimers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := r.mgr.State(); got != Idle {
		t.Fatalf("state %s one acquire poll after the step-down, want idle", got)
	}
	r.tick(testTiming.AcquirePollInterval)
	again := r.hold()
	defer again.Release()
	if again.Token().Version <= term.Token().Version {
		t.Fatalf("version %d after the pause, not above %d", again.Token().Version, term.Token().Version)
	}
	r.waitCalls("acquire", 2)
}
