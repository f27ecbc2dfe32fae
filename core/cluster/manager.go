package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Config configures a Manager.
type Config struct {
	// Key names the lease in the store; required.
	Key string
	// Owner is this instance's identity, the lease owner; required and
	// unique in the cluster.
	Owner string
	// Store keeps the lease; required.
	Store ports.LeaseStore
	// Timing is the lease's cadence; every duration but the jitter and
	// the grace must be positive.
	Timing Timing
	// Clock drives the cadence (system clock).
	Clock ports.Clock
	// Logger receives transitions (slog.Default()).
	Logger *slog.Logger
	// Meter receives the lease metrics (no-op).
	Meter telemetry.Meter
	// Rand returns uniform numbers in [0,1) for the renewal jitter
	// (math/rand/v2).
	Rand func() float64
	// BrokerHealth enables broker-health step-down (off when After is
	// zero); the probe comes from SetHealthProbe.
	BrokerHealth BrokerHealth
}

// Manager keeps one lease: it acquires it, renews it, steps down and
// acquires it again, until Run's context ends. Its methods are safe for
// concurrent use.
type Manager struct {
	cfg    Config
	log    *slog.Logger
	m      metrics
	health BrokerHealth // resolved; After is zero when off
	// heldOff is 1 while the manager sits out after a broker-health
	// step-down.
	heldOff telemetry.Gauge

	mu      sync.Mutex
	state   State
	term    *Term         // the held term; nil unless state.Holds()
	changed chan struct{} // closed and replaced at every state change
	ran     bool

	stepDown chan string // a requested step-down's reason; buffered, one pending

	// Broker-health step-down (health.go).
	probe            HealthProbe
	outMin, outUntil time.Time // the sit-out after a broker-health step-down; zero when none
	pausedUntil      time.Time // no acquire before this, after a requested step-down
}

// New checks cfg and returns a manager in state Idle. Nothing runs before
// Run.
func New(cfg Config) (*Manager, error) {
	switch {
	case cfg.Key == "":
		return nil, fault.ErrInvalidConfig.WithMessage("cluster: lease key is required")
	case cfg.Owner == "":
		return nil, fault.ErrInvalidConfig.WithMessage("cluster: lease owner is required")
	case cfg.Store == nil:
		return nil, fault.ErrInvalidConfig.WithMessage("cluster: lease store is required")
	}
	if err := cfg.Timing.validate(); err != nil {
		return nil, fault.ErrInvalidConfig.WithMessage(err.Error())
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.System()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Meter == nil {
		cfg.Meter = telemetry.Noop()
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Float64
	}
	ms := newMetrics(cfg.Meter, cfg.Key)
	ms.stepDowns[reasonBrokerHealth] = cfg.Meter.Counter(descStepDowns, cfg.Key, reasonBrokerHealth)
	return &Manager{
		cfg: cfg, log: cfg.Logger.With("lease", cfg.Key, "owner", cfg.Owner), m: ms,
		health: cfg.BrokerHealth.resolved(cfg.Timing), heldOff: cfg.Meter.Gauge(descHeldOff, cfg.Key),
		changed: make(chan struct{}), stepDown: make(chan string, 1),
	}, nil
}

// Key returns the lease key.
func (m *Manager) Key() string { return m.cfg.Key }

// State returns the current state.
func (m *Manager) State() State {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state
}

// Changed returns a channel closed at the next state change.
func (m *Manager) Changed() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changed
}

// Hold waits until the lease is held and returns its term, registered as
// held by the caller, who must Release it. It fails with ctx's error when
// ctx ends first.
func (m *Manager) Hold(ctx context.Context) (*Term, error) {
	for {
		m.mu.Lock()
		t, ch := m.term, m.changed
		if t != nil {
			select {
			case <-t.lost:
			default:
				t.holders.Add(1)
				m.mu.Unlock()
				return t, nil
			}
		}
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ch:
		}
	}
}

// StepDown asks the manager to give the lease up (as broker-health
// step-down does), for a standby to take over: it stays out of the
// acquire race for two acquire polls, then competes again. It does
// nothing when the lease is not held.
func (m *Manager) StepDown() { m.requestStepDown(reasonRequested) }

// requestStepDown asks keep to step down for reason, unless a request is
// already pending.
func (m *Manager) requestStepDown(reason string) {
	select {
	case m.stepDown <- reason:
	default:
	}
}

// setState records s, publishes t as the held term (nil when not held)
// and wakes the waiters.
func (m *Manager) setState(s State, t *Term) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state == s && m.term == t {
		return
	}
	m.state, m.term = s, t
	close(m.changed)
	m.changed = make(chan struct{})
	if t != nil {
		m.m.held.Set(1)
	} else {
		m.m.held.Set(0)
	}
}

// Run keeps the lease until ctx ends, then steps down (holders get the
// grace) and releases it. It returns nil; a second call fails.
func (m *Manager) Run(ctx context.Context) error {
	m.mu.Lock()
	if m.ran {
		m.mu.Unlock()
		return fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("cluster: manager of lease %q runs only once", m.cfg.Key))
	}
	m.ran = true
	m.mu.Unlock()
	if m.health.After > 0 {
		hctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			m.watchHealth(hctx)
		}()
		defer func() {
			stop()
			<-done
		}()
	}
	wait := time.Duration(0)
	for {
		if !m.sleep(ctx, wait) {
			m.setState(Released, nil)
			return nil
		}
		// A step-down requested while the lease was not held means
		// nothing.
		select {
		case <-m.stepDown:
		default:
		}
		if m.sittingOut() {
			m.setState(Idle, nil)
			wait = m.cfg.Timing.AcquirePollInterval
			continue
		}
		m.setState(Acquiring, nil)
		t, err := m.acquire(ctx)
		if err != nil {
			m.setState(Idle, nil)
			if ctx.Err() == nil && fault.CodeOf(err) != fault.CodeAlreadyExists {
				m.log.Warn("lease acquire failed", "err", err)
			}
			wait = m.cfg.Timing.AcquirePollInterval
			continue
		}
		m.m.acquired.Add(1)
		m.m.version.Set(float64(t.tok.Version))
		m.log.Info("lease acquired; this instance is active", "version", t.tok.Version)
		m.setState(Active, t)
		reason := m.keep(ctx, t)
		m.stepDownTerm(t, reason)
		if ctx.Err() != nil {
			return nil
		}
		m.setState(Idle, nil)
		wait = m.cfg.Timing.AcquirePollInterval
	}
}

// sleep waits d on the clock; it reports false when ctx ended first.
func (m *Manager) sleep(ctx context.Context, d time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	if d <= 0 {
		return true
	}
	t := m.cfg.Clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}

// acquire tries once to take the lease.
func (m *Manager) acquire(ctx context.Context) (*Term, error) {
	tm := m.cfg.Timing
	sent := m.cfg.Clock.Now()
	cctx, cancel := context.WithTimeout(ctx, tm.RenewCallTimeout)
	defer cancel()
	tok, err := m.cfg.Store.Acquire(cctx, m.cfg.Key, m.cfg.Owner, tm.TTL)
	if err != nil {
		return nil, err
	}
	margin := tm.safetyMargin()
	return newTerm(tok, m.cfg.Clock, margin, sent.Add(tm.TTL-margin)), nil
}

// keep renews t's lease on the cadence and returns why it must step
// down: too many failed renewals, a stale token, a requested step-down,
// or the end of ctx.
func (m *Manager) keep(ctx context.Context, t *Term) string {
	tm := m.cfg.Timing
	fails := 0
	for {
		wait := tm.RenewInterval + time.Duration(m.cfg.Rand()*float64(tm.RenewJitter))
		timer := m.cfg.Clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return reasonStop
		case reason := <-m.stepDown:
			timer.Stop()
			return reason
		case <-timer.C():
		}
		m.setState(Renewing, t)
		sent := m.cfg.Clock.Now()
		cctx, cancel := context.WithTimeout(ctx, tm.RenewCallTimeout)
		err := m.cfg.Store.Renew(cctx, m.cfg.Key, t.tok, tm.TTL)
		cancel()
		switch {
		case err == nil:
			fails = 0
			t.extend(sent, tm.TTL)
			m.setState(Active, t)
		case ctx.Err() != nil:
			return reasonStop
		case fault.CodeOf(err) == fault.CodeStaleFencingToken:
			m.m.renewFailed.Add(1)
			m.log.Warn("lease taken over by another owner; stepping down at once", "version", t.tok.Version, "err", err)
			return reasonStale
		default:
			fails++
			m.m.renewFailed.Add(1)
			m.log.Warn("lease renewal failed", "failures", fails, "max_renew_fails", tm.MaxRenewFails, "err", err)
			if fails >= tm.MaxRenewFails {
				return reasonRenewFailed
			}
		}
	}
}

// stepDownTerm ends t: holders are told to stop and get the grace to
// finish their in-flight writes (none when the token is stale: the store
// refuses them anyway), then the term's context ends and the lease is
// released.
func (m *Manager) stepDownTerm(t *Term, reason string) {
	m.m.stepDowns[reason].Add(1)
	m.setState(SteppingDown, nil)
	t.lose()
	grace := m.cfg.Timing.StepDownGrace
	if reason == reasonStale {
		grace = 0
	}
	if !t.waitHolders(m.cfg.Clock, grace) {
		m.log.Warn("lease holders still busy after the step-down grace; their in-flight work is left unsettled", "grace", grace)
	}
	t.end()
	if reason != reasonStale {
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.Timing.RenewCallTimeout)
		if err := m.cfg.Store.Release(ctx, m.cfg.Key, t.tok); err != nil && fault.CodeOf(err) != fault.CodeStaleFencingToken {
			m.log.Warn("lease release failed; it expires on its own", "err", err)
		}
		cancel()
	}
	if reason == reasonRequested {
		// A requested step-down hands the lease to a standby: without a
		// pause this instance, polling on its own phase, could win the
		// lease straight back before any standby polled.
		m.pauseAcquire(m.cfg.Clock.Now())
	}
	m.setState(Released, nil)
	m.log.Info("stepped down from the lease; this instance is standby", "reason", reason, "version", t.tok.Version)
}
