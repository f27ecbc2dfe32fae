package breaker

import (
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// Breaker is one circuit. Build it with New; the zero value is not usable.
// Every Token obtained from Allow must be given back to Record exactly once
// (with Ignored when the outcome says nothing), otherwise a half-open
// breaker keeps the probe slot busy until its next transition.
type Breaker struct {
	cfg      Config
	key      string
	clk      ports.Clock
	onChange func(Transition)

	mu        sync.Mutex
	state     State
	gen       uint64
	openedAt  time.Time
	probes    int
	consecF   int
	consecS   int
	requests  uint64
	rejected  uint64
	successes uint64
	failures  uint64
	ignored   uint64
	stale     uint64
	lastFail  time.Time
}

// New returns a closed breaker. Zero fields of cfg take their defaults; a
// negative field is an error (see Config.Validate).
func New(cfg Config, opts ...Option) (*Breaker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := newSettings(opts)
	return &Breaker{
		cfg:      cfg.WithDefaults(),
		key:      s.key,
		clk:      s.clk,
		onChange: s.onChange,
		gen:      1,
	}, nil
}

// Config returns the breaker's configuration with defaults applied.
func (b *Breaker) Config() Config { return b.cfg }

// Key returns the name given with WithKey.
func (b *Breaker) Key() string { return b.key }

// Allow asks to make a call. It returns a token for Record, or a
// *RejectError (matching ErrOpen or ErrProbeLimit) when the call must not
// be made. An open breaker whose reset timeout has passed turns half-open
// here and admits the call as a probe.
func (b *Breaker) Allow() (Token, error) {
	b.mu.Lock()
	if b.state == Closed {
		b.requests++
		t := Token{b.gen}
		b.mu.Unlock()
		return t, nil
	}
	var tr Transition
	changed := false
	if b.state == Open {
		now := b.clk.Now()
		if wait := b.openedAt.Add(b.cfg.ResetTimeout).Sub(now); wait > 0 {
			b.rejected++
			b.mu.Unlock()
			return Token{}, &RejectError{State: Open, RetryAfter: wait}
		}
		tr, changed = b.moveTo(HalfOpen, now), true
	}
	// Half-open.
	if b.probes >= b.cfg.HalfOpenMaxProbes {
		b.rejected++
		b.mu.Unlock()
		b.notify(tr, changed)
		return Token{}, &RejectError{State: HalfOpen}
	}
	b.probes++
	b.requests++
	t := Token{b.gen}
	b.mu.Unlock()
	b.notify(tr, changed)
	return t, nil
}

// Record reports the outcome of a call admitted with t. It returns false,
// and counts a stale outcome, when the breaker has changed state since t
// was issued; the outcome is then not applied.
func (b *Breaker) Record(t Token, o Outcome) bool {
	b.mu.Lock()
	if t.gen != b.gen || b.state == Open {
		// An open breaker issues no tokens, so a token that matches an
		// open generation can only be forged; treat it as stale too.
		b.stale++
		b.mu.Unlock()
		return false
	}
	if b.state == HalfOpen {
		b.probes--
	}
	var tr Transition
	changed := false
	switch o {
	case Success:
		b.successes++
		b.consecS++
		b.consecF = 0
		if b.state == HalfOpen && b.consecS >= b.cfg.SuccessThreshold {
			tr, changed = b.moveTo(Closed, b.clk.Now()), true
		}
	case Failure:
		now := b.clk.Now()
		b.failures++
		b.consecF++
		b.consecS = 0
		b.lastFail = now
		if b.state == HalfOpen || b.consecF >= b.cfg.FailureThreshold {
			tr, changed = b.moveTo(Open, now), true
		}
	default:
		b.ignored++
	}
	b.mu.Unlock()
	b.notify(tr, changed)
	return true
}

// moveTo switches to s, starts a new generation and returns the transition
// to announce once the lock is released. b.mu must be held.
func (b *Breaker) moveTo(s State, now time.Time) Transition {
	tr := Transition{Key: b.key, From: b.state, To: s, At: now}
	b.state = s
	b.gen++
	b.probes = 0
	b.consecS = 0
	if s == Open {
		b.openedAt = now
	} else {
		b.consecF = 0
	}
	tr.Generation = b.gen
	return tr
}

func (b *Breaker) notify(tr Transition, changed bool) {
	if changed && b.onChange != nil {
		b.onChange(tr)
	}
}

// State returns the state the next Allow would see. It does not change
// the breaker: an open breaker past its reset timeout reports HalfOpen but
// makes the transition only on the next Allow.
func (b *Breaker) State() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.effectiveState()
}

// effectiveState needs b.mu held.
func (b *Breaker) effectiveState() State {
	if b.state == Open && !b.clk.Now().Before(b.openedAt.Add(b.cfg.ResetTimeout)) {
		return HalfOpen
	}
	return b.state
}

// RetryAfter returns how long an open breaker will keep refusing calls;
// zero in any other state or once the reset timeout has passed.
func (b *Breaker) RetryAfter() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != Open {
		return 0
	}
	return max(b.openedAt.Add(b.cfg.ResetTimeout).Sub(b.clk.Now()), 0)
}

// Generation returns the current generation.
func (b *Breaker) Generation() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gen
}

// InFlightProbes returns how many half-open probes have not been recorded.
func (b *Breaker) InFlightProbes() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.probes
}

// Metrics returns a snapshot of the breaker's counters.
func (b *Breaker) Metrics() Metrics {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Metrics{
		Key:                  b.key,
		State:                b.effectiveState(),
		Generation:           b.gen,
		TotalRequests:        b.requests,
		TotalRejections:      b.rejected,
		TotalSuccesses:       b.successes,
		TotalFailures:        b.failures,
		TotalIgnored:         b.ignored,
		ConsecutiveFailures:  b.consecF,
		ConsecutiveSuccesses: b.consecS,
		StaleOutcomes:        b.stale,
		ProbesInFlight:       b.probes,
		LastFailureTime:      b.lastFail,
	}
}
