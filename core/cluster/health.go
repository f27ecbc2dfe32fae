package cluster

import (
	"context"
	"time"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// reasonBrokerHealth is the step-down reason of an owner whose broker path
// stayed unconverged for longer than BrokerHealth.After.
const reasonBrokerHealth = "broker_health"

var descHeldOff = telemetry.Desc{Name: "gobridge_lease_broker_hold_off",
	Help:   "1 while this instance stays out of the acquire race after giving the lease up for its broker path (broker_health_step_down), 0 otherwise.",
	Labels: []string{"lease"}}

// BrokerHealth configures broker-health step-down: an owner whose path to
// the broker behind its lease (the source of an exclusive route) stays
// unconverged for longer than After gives the lease up, so that a standby
// whose path is healthy takes over.
//
// An instance that stepped down this way sits out of the acquire race, so
// that it does not win back the lease it just gave up while its own path
// is still broken: it waits at least two acquire polls (a healthy
// standby's poll comes first), then until its probe says the broker is
// reachable again, and at most HoldOff. The bound matters when the probe
// cannot tell (a session that only connects on the lease holder) or when
// every instance lost the broker: someone has to hold the lease when the
// broker comes back.
type BrokerHealth struct {
	// After is how long the path may stay unconverged while the lease is
	// held; zero disables broker-health step-down.
	After time.Duration
	// Poll is how often the probe is asked; zero derives
	// min(After/10, 250ms), at least 10ms.
	Poll time.Duration
	// HoldOff bounds how long an instance stays out of the acquire race
	// after a broker-health step-down; zero derives After + the lease TTL.
	HoldOff time.Duration
}

// HealthProbe is this instance's view of the broker path behind a lease.
// Neither method may block on the network.
type HealthProbe interface {
	// Converged reports whether the source is connected and consuming,
	// or subscribed to, everything it should; detail says why not. It is
	// asked while the lease is held.
	Converged() (ok bool, detail string)
	// Reachable reports whether this instance reaches the broker at all
	// (its session is connected), which a standby can tell too.
	Reachable() bool
}

// resolved fills the derived durations of h for a lease of timing t.
func (h BrokerHealth) resolved(t Timing) BrokerHealth {
	if h.After <= 0 {
		return BrokerHealth{}
	}
	if h.Poll <= 0 {
		h.Poll = max(min(h.After/10, 250*time.Millisecond), 10*time.Millisecond)
	}
	if h.HoldOff <= 0 {
		h.HoldOff = h.After + t.TTL
	}
	return h
}

// SetHealthProbe sets the probe broker-health step-down asks (nil: none,
// the lease is never given up for the broker path). A route rebuilt by a
// reload sets its probe again; the manager keeps running.
func (m *Manager) SetHealthProbe(p HealthProbe) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.probe = p
}

// watchHealth asks the probe every Poll while the lease is held and
// requests a step-down once the path has been unconverged for After. It
// returns when ctx ends.
func (m *Manager) watchHealth(ctx context.Context) {
	var since time.Time // first unconverged sighting of this stretch; zero while converged
	timer := m.cfg.Clock.NewTimer(m.health.Poll)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C():
		}
		since = m.checkHealth(since)
		timer.Reset(m.nextCheck(since))
	}
}

// nextCheck is the wait before the next check: one poll, or less when
// the current unconverged stretch reaches After sooner, so the step-down
// comes After past the first unconverged sighting, not up to a poll late.
func (m *Manager) nextCheck(since time.Time) time.Duration {
	next := m.health.Poll
	if !since.IsZero() {
		if rem := since.Add(m.health.After).Sub(m.cfg.Clock.Now()); rem > 0 && rem < next {
			next = rem
		}
	}
	return next
}

// checkHealth asks the probe once, given the start of the current
// unconverged stretch (zero: none), and returns the new start.
func (m *Manager) checkHealth(since time.Time) time.Time {
	h := m.health
	m.mu.Lock()
	p, held := m.probe, m.state.Holds()
	m.mu.Unlock()
	if p == nil || !held {
		return time.Time{}
	}
	ok, detail := p.Converged()
	now := m.cfg.Clock.Now()
	switch {
	case ok:
		if !since.IsZero() {
			m.log.Info("broker path converged again", "after", now.Sub(since))
		}
		since = time.Time{}
	case since.IsZero():
		since = now
		m.log.Warn("broker path not converged; the lease is given up if it stays so", "within", h.After, "detail", detail)
	case now.Sub(since) >= h.After:
		m.log.Warn("broker path unconverged for longer than broker_health_step_down; stepping down so that a standby with a healthy path takes over",
			"unconverged_for", now.Sub(since), "broker_health_step_down", h.After, "detail", detail)
		m.sitOut(now)
		m.requestStepDown(reasonBrokerHealth)
		since = time.Time{}
	}
	return since
}

// sitOut keeps the manager out of the acquire race from now on, see
// BrokerHealth.
func (m *Manager) sitOut(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.outMin = now.Add(2 * m.cfg.Timing.AcquirePollInterval)
	m.outUntil = now.Add(m.health.HoldOff)
	m.heldOff.Set(1)
}

// pauseAcquire keeps the manager out of the acquire race for two acquire
// polls from now, so that a standby's poll comes first.
func (m *Manager) pauseAcquire(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pausedUntil = now.Add(2 * m.cfg.Timing.AcquirePollInterval)
}

// sittingOut reports whether the manager must skip this acquire round:
// shortly after a requested step-down, or after a broker-health
// step-down until the broker is reachable again or the bound is reached.
func (m *Manager) sittingOut() bool {
	m.mu.Lock()
	outMin, outUntil, p, paused := m.outMin, m.outUntil, m.probe, m.pausedUntil
	m.mu.Unlock()
	if !paused.IsZero() && m.cfg.Clock.Now().Before(paused) {
		return true
	}
	if outUntil.IsZero() {
		return false
	}
	now := m.cfg.Clock.Now()
	switch {
	case now.Before(outMin):
		return true
	case !now.Before(outUntil):
		m.log.Warn("back in the acquire race after the broker-health hold-off, though the broker path is not known to be healthy", "hold_off", m.health.HoldOff)
	case p != nil && p.Reachable():
		m.log.Info("broker reachable again; back in the acquire race")
	default:
		return true
	}
	m.mu.Lock()
	m.outMin, m.outUntil = time.Time{}, time.Time{}
	m.mu.Unlock()
	m.heldOff.Set(0)
	return false
}
