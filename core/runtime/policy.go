package runtime

import (
	"math"
	"time"
)

// DeliveryMode says when a route settles the source delivery.
type DeliveryMode string

// Delivery modes.
const (
	// DirectHold keeps the source delivery open until every target accepted.
	DirectHold DeliveryMode = "direct_hold"
	// SharedOutbox persists the message to an outbox and settles at once.
	SharedOutbox DeliveryMode = "shared_outbox"
)

// DispatchMode says how many resolved destinations receive a message.
type DispatchMode string

// Dispatch modes.
const (
	// Single sends to the first destination the resolver returns.
	Single DispatchMode = "single"
	// FanOut sends to every destination and settles only when all accepted.
	FanOut DispatchMode = "fan_out"
)

// Action is what a route does with a message that reached a terminal
// outcome (expired, permanently failed, filtered).
type Action string

// Terminal actions.
const (
	Drop Action = "drop"
	DLQ  Action = "dlq"
)

// Policy defaults.
const (
	DefaultMaxInFlight       = 100
	DefaultSendTimeout       = 30 * time.Second
	DefaultMaxReplayAttempts = 5
	DefaultReplayBudget      = 15 * time.Minute
	DefaultInitialInterval   = time.Second
	DefaultMaxInterval       = 30 * time.Second
	DefaultMultiplier        = 2.0
	DefaultJitter            = 0.2
)

// MaxMaxInFlight is the largest accepted Policy.MaxInFlight: each in-flight
// slot may become a goroutine, and a million is already far beyond what one
// route needs.
const MaxMaxInFlight = 1_000_000

// Policy tunes how a route handles and settles messages. The zero value of
// every field means "use the default".
type Policy struct {
	// MaxInFlight bounds the deliveries a route handles at once (100).
	MaxInFlight int
	// SendTimeout bounds each Send call (30s).
	SendTimeout time.Duration
	// OnExpired applies to messages past their expiry (dlq).
	OnExpired Action
	// OnPermanentFailure applies to permanent errors (dlq).
	OnPermanentFailure Action
	// OnFiltered applies to messages a processor filtered out (drop).
	OnFiltered Action
	// Backoff is the retry delay ladder.
	Backoff Backoff
	// MaxReplayAttempts and ReplayBudget together decide when a message
	// that keeps failing transiently is poison: only once it has failed at
	// least MaxReplayAttempts times (5) AND its first failure is at least
	// ReplayBudget old (15m) does it go to the DLQ. Deliveries the bridge
	// abandoned unsettled or handed back after a DLQ refusal do not count,
	// even when the source counts them as redeliveries.
	MaxReplayAttempts int
	ReplayBudget      time.Duration
	// AllowRetryDrop accepts a route whose source cannot redeliver and that
	// has no DLQ: a transient failure then drops the message (counted).
	AllowRetryDrop bool
	// Outbox tunes shared_outbox routes; direct_hold routes ignore it.
	Outbox OutboxPolicy
}

// Backoff is an exponential retry ladder with equal jitter.
type Backoff struct {
	// Initial is the first delay (1s).
	Initial time.Duration
	// Max caps every delay (30s).
	Max time.Duration
	// Multiplier grows the delay per attempt; must be >= 1 (2).
	Multiplier float64
	// Jitter is the fraction of each delay that is randomised, in [0,1].
	// nil means 0.2; a pointer to 0 gives deterministic delays.
	Jitter *float64
}

// withDefaults returns p with every zero field replaced by its default.
func (p Policy) withDefaults() Policy {
	if p.MaxInFlight == 0 {
		p.MaxInFlight = DefaultMaxInFlight
	}
	if p.SendTimeout == 0 {
		p.SendTimeout = DefaultSendTimeout
	}
	if p.OnExpired == "" {
		p.OnExpired = DLQ
	}
	if p.OnPermanentFailure == "" {
		p.OnPermanentFailure = DLQ
	}
	if p.OnFiltered == "" {
		p.OnFiltered = Drop
	}
	if p.MaxReplayAttempts == 0 {
		p.MaxReplayAttempts = DefaultMaxReplayAttempts
	}
	if p.ReplayBudget == 0 {
		p.ReplayBudget = DefaultReplayBudget
	}
	p.Backoff = p.Backoff.withDefaults()
	p.Outbox = p.Outbox.withDefaults()
	return p
}

func (b Backoff) withDefaults() Backoff {
	if b.Initial == 0 {
		b.Initial = DefaultInitialInterval
	}
	if b.Max == 0 {
		b.Max = DefaultMaxInterval
	}
	if b.Multiplier == 0 {
		b.Multiplier = DefaultMultiplier
	}
	if b.Jitter == nil {
		j := DefaultJitter
		b.Jitter = &j
	}
	return b
}

// Delay returns the wait before retry number attempt (1 for the first
// retry). rnd is a uniform random number in [0,1) that drives the jitter:
// the result is d*(1-jitter) + rnd*d*jitter, where d is the exponential
// delay capped at Max. Zero fields take their defaults.
func (b Backoff) Delay(attempt int, rnd float64) time.Duration {
	b = b.withDefaults()
	attempt = max(attempt, 1)
	d := float64(b.Initial) * math.Pow(b.Multiplier, float64(attempt-1))
	if d > float64(b.Max) || math.IsInf(d, 0) || math.IsNaN(d) {
		d = float64(b.Max)
	}
	j := *b.Jitter
	return time.Duration(d*(1-j) + rnd*d*j)
}
