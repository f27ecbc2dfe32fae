package cluster

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// fakeProbe is a broker path the test sets.
type fakeProbe struct {
	mu                   sync.Mutex
	converged, reachable bool
}

func (p *fakeProbe) Converged() (bool, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.converged, "test says so"
}

func (p *fakeProbe) Reachable() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reachable
}

func (p *fakeProbe) set(converged, reachable bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.converged, p.reachable = converged, reachable
}

// healthTiming renews every second; a standby polls every second.
var healthTiming = Timing{TTL: 6 * time.Second, RenewInterval: time.Second, RenewCallTimeout: 500 * time.Millisecond,
	MaxRenewFails: 3, StepDownGrace: time.Second, AcquirePollInterval: time.Second}

// healthPolicy steps down after 2s unconverged, checking every 500ms, and
// sits out at most 10s.
var healthPolicy = BrokerHealth{After: 2 * time.Second, Poll: 500 * time.Millisecond, HoldOff: 10 * time.Second}

// healthRig is a running manager with broker-health step-down on a fake
// clock, store and probe.
type healthRig struct {
	*rig
	probe *fakeProbe
}

func newHealthRig(t *testing.T, owner string, clk *clock.Fake, store *fakeLeases, h BrokerHealth) *healthRig {
	t.Helper()
	meter := telemetry.NewMemory()
	m, err := New(Config{Key: "session/s1", Owner: owner, Store: store, Timing: healthTiming, Clock: clk,
		Logger: slog.New(slog.DiscardHandler), Meter: meter, Rand: func() float64 { return 0 }, BrokerHealth: h})
	if err != nil {
		t.Fatal(err)
	}
	p := &fakeProbe{converged: true, reachable: true}
	m.SetHealthProbe(p)
	ctx, cancel := context.WithCancel(context.Background())
	r := &rig{t: t, clk: clk, store: store, mgr: m, meter: meter, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		_ = m.Run(ctx)
	}()
	t.Cleanup(r.shutdown)
	return &healthRig{rig: r, probe: p}
}

// advance waits until timers timers are armed (each running goroutine
// waits on one) and moves the clock by d, n times.
func advance(t *testing.T, clk *clock.Fake, timers, n int, d time.Duration) {
	t.Helper()
	for range n {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := clk.WaitForTimers(ctx, timers)
		cancel()
		if err != nil {
			t.Fatalf("fewer than %d timers armed: %v", timers, err)
		}
		clk.Advance(d)
	}
}

// settle waits until timers timers are armed again: whatever the last
// advance woke has run.
func settle(t *testing.T, clk *clock.Fake, timers int) { advance(t, clk, timers, 1, 0) }

func TestBrokerHealthStepDown(t *testing.T) {
	for _, tc := range []struct {
		name string
		// policy is the manager's broker-health policy.
		policy BrokerHealth
		// unconverged is how long the path stays unconverged, in polls
		// of 500ms, before it converges again.
		unconverged int
		stepDown    bool
	}{
		// The first poll sees it, the fifth poll is 2s later.
		{"unconverged for broker_health_step_down", healthPolicy, 5, true},
		{"converged again one poll short", healthPolicy, 4, false},
		{"off", BrokerHealth{}, 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewFake(epoch)
			r := newHealthRig(t, "a", clk, newFakeLeases(clk), tc.policy)
			term := r.hold()
			term.Release()
			timers := 2 // the renewal and the health watcher
			if tc.policy.After == 0 {
				timers = 1
			}
			r.probe.set(false, false)
			advance(t, clk, timers, tc.unconverged, 500*time.Millisecond)
			settle(t, clk, timers)
			r.probe.set(true, true)
			advance(t, clk, timers, 10, 500*time.Millisecond)
			r.settleOrIdle(timers)
			got := r.meter.Count("gobridge_lease_step_downs_total", "session/s1", reasonBrokerHealth)
			if want := map[bool]int64{true: 1, false: 0}[tc.stepDown]; got != want {
				t.Fatalf("broker-health step-downs = %d, want %d (state %s)", got, want, r.mgr.State())
			}
			if tc.stepDown != closed(term.Lost()) {
				t.Fatalf("term lost = %v, want %v", closed(term.Lost()), tc.stepDown)
			}
			if tc.stepDown && r.store.count("release") != 1 {
				t.Fatalf("releases = %d, want 1: the lease must be handed back for a standby", r.store.count("release"))
			}
		})
	}
}

// settleOrIdle waits until the manager is waiting on its timers again.
func (r *healthRig) settleOrIdle(timers int) { settle(r.t, r.clk, timers) }

// TestBrokerHealthSitOut: an instance that stepped down for its broker
// path stays out of the acquire race while the broker stays unreachable,
// at most the hold-off, and comes back as soon as it is reachable again
// (after two acquire polls).
func TestBrokerHealthSitOut(t *testing.T) {
	for _, tc := range []struct {
		name string
		// reachableAfter is when, in acquire polls after the step-down,
		// the broker is reachable again; 0: never.
		reachableAfter int
		// backAfter is the acquire poll at which the manager acquires
		// again.
		backAfter int
	}{
		{"reachable at once: two polls for a standby", 1, 2},
		{"reachable after four polls", 4, 4},
		{"never reachable: the hold-off bounds it", 0, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewFake(epoch)
			store := newFakeLeases(clk)
			r := newHealthRig(t, "a", clk, store, healthPolicy)
			term := r.hold()
			term.Release()
			r.probe.set(false, false)
			advance(t, clk, 2, 5, 500*time.Millisecond)
			r.waitState(Idle)
			if got := r.meter.Value("gobridge_lease_broker_hold_off", "session/s1"); got != 1 {
				t.Fatalf("gobridge_lease_broker_hold_off = %v while sitting out, want 1", got)
			}
			acquires := store.count("acquire")
			for poll := 1; ; poll++ {
				if poll == tc.reachableAfter {
					r.probe.set(false, true)
				}
				advance(t, clk, 2, 1, healthTiming.AcquirePollInterval)
				settle(t, clk, 2)
				if store.count("acquire") > acquires {
					if poll != tc.backAfter {
						t.Fatalf("acquired again at poll %d, want %d", poll, tc.backAfter)
					}
					break
				}
				if poll > 20 {
					t.Fatal("never acquired again")
				}
			}
			if got := r.meter.Value("gobridge_lease_broker_hold_off", "session/s1"); got != 0 {
				t.Fatalf("gobridge_lease_broker_hold_off = %v back in the race, want 0", got)
			}
		})
	}
}

// TestBrokerHealthHandsOverToAHealthyStandby: two instances on one store;
// the owner's broker path breaks, it steps down, the standby (healthy)
// takes the lease at its next poll, and the broken one does not take it
// back while its broker stays unreachable.
func TestBrokerHealthHandsOverToAHealthyStandby(t *testing.T) {
	clk := clock.NewFake(epoch)
	store := newFakeLeases(clk)
	a := newHealthRig(t, "a", clk, store, healthPolicy)
	term := a.hold()
	term.Release()
	b := newHealthRig(t, "b", clk, store, healthPolicy)
	b.waitState(Idle) // refused: a holds it
	const timers = 4  // each: its loop and its health watcher
	a.probe.set(false, false)
	advance(t, clk, timers, 5, 500*time.Millisecond)
	a.waitLost(term)
	a.waitState(Idle) // released: the standby's next poll wins
	took := time.Duration(0)
	for b.mgr.State() != Active {
		advance(t, clk, timers, 1, 250*time.Millisecond)
		settle(t, clk, timers)
		if took += 250 * time.Millisecond; took > 5*time.Second {
			t.Fatalf("the standby did not take over (a %s, b %s)", a.mgr.State(), b.mgr.State())
		}
	}
	if took > healthTiming.AcquirePollInterval {
		t.Errorf("the standby took over %v after the step-down, more than one acquire poll", took)
	}
	advance(t, clk, timers, 40, 500*time.Millisecond)
	settle(t, clk, timers)
	if a.mgr.State().Holds() || !b.mgr.State().Holds() {
		t.Fatalf("a %s, b %s: the healthy standby must keep the lease", a.mgr.State(), b.mgr.State())
	}
}

// TestBrokerHealthStepDownIsNotAPollLate: with a poll that does not
// divide broker_health_step_down, the step-down comes exactly
// broker_health_step_down after the first unconverged sighting.
func TestBrokerHealthStepDownIsNotAPollLate(t *testing.T) {
	clk := clock.NewFake(epoch)
	r := newHealthRig(t, "a", clk, newFakeLeases(clk), BrokerHealth{After: 1200 * time.Millisecond, Poll: 500 * time.Millisecond, HoldOff: 10 * time.Second})
	term := r.hold()
	term.Release()
	r.probe.set(false, false)
	advance(t, clk, 2, 3, 500*time.Millisecond) // sighted at 0.5s; 1.0s unconverged at 1.5s
	settle(t, clk, 2)
	if closed(term.Lost()) {
		t.Fatal("stepped down before broker_health_step_down")
	}
	advance(t, clk, 2, 1, 200*time.Millisecond) // 1.2s unconverged at 1.7s
	r.waitLost(term)
}
