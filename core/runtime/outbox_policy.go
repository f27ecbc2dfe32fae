package runtime

import "time"

// Outbox defaults.
const (
	DefaultMaxOutboxDepth      = 10000
	DefaultDepthCacheTTL       = time.Second
	DefaultDrainBatchSize      = 100
	DefaultDrainMaxBatchSize   = 500
	DefaultDrainMaxConcurrency = 10
	DefaultDrainMinInterval    = 50 * time.Millisecond
	DefaultDrainMaxInterval    = 2 * time.Second
	DefaultDrainMultiplier     = 2.0
)

// DrainStrategyType names how a drainer paces its polls.
type DrainStrategyType string

// Drain strategies.
const (
	// FixedPoll polls an empty partition at a fixed interval.
	FixedPoll DrainStrategyType = "fixed_poll"
	// AdaptiveBackoff polls again at once while there is work and backs off
	// from MinInterval to MaxInterval while the partition stays empty.
	AdaptiveBackoff DrainStrategyType = "adaptive_backoff"
)

// OutboxPolicy tunes a shared_outbox route: how much may queue, and how the
// drainers deliver it. Zero fields take their defaults.
type OutboxPolicy struct {
	// MaxDepth is the number of undelivered records per partition above
	// which ingress is pushed back (retried) rather than persisted (10000).
	MaxDepth int
	// DepthCacheTTL is how long a depth reading is reused (1s).
	DepthCacheTTL time.Duration
	// Interval, when set, is a fixed poll interval; it is the shorthand for
	// Strategy{Type: FixedPoll, Interval: d} and cannot be combined with
	// Strategy.
	Interval time.Duration
	// Strategy paces the polls (adaptive_backoff, 50ms to 2s, x2).
	Strategy DrainStrategy
	// BatchSize is the number of records claimed per poll at first (100).
	BatchSize int
	// MaxBatchSize caps the claim size when the drainer grows it because
	// claims keep coming back full (500).
	MaxBatchSize int
	// MaxConcurrency bounds concurrent sends within one poll (10).
	MaxConcurrency int
}

// DrainStrategy paces a drainer's polls.
type DrainStrategy struct {
	Type DrainStrategyType
	// Interval is the poll interval of FixedPoll.
	Interval time.Duration
	// MinInterval, MaxInterval and Multiplier shape AdaptiveBackoff; the
	// multiplier must be above 1.
	MinInterval time.Duration
	MaxInterval time.Duration
	Multiplier  float64
}

func (o OutboxPolicy) withDefaults() OutboxPolicy {
	if o.MaxDepth == 0 {
		o.MaxDepth = DefaultMaxOutboxDepth
	}
	if o.DepthCacheTTL == 0 {
		o.DepthCacheTTL = DefaultDepthCacheTTL
	}
	if o.Interval > 0 && o.Strategy.Type == "" {
		o.Strategy = DrainStrategy{Type: FixedPoll, Interval: o.Interval}
	}
	s := &o.Strategy
	if s.Type == "" {
		s.Type = AdaptiveBackoff
	}
	if s.Type == FixedPoll && s.Interval == 0 {
		s.Interval = DefaultDrainMinInterval
	}
	if s.MinInterval == 0 {
		s.MinInterval = DefaultDrainMinInterval
	}
	if s.MaxInterval == 0 {
		s.MaxInterval = max(DefaultDrainMaxInterval, s.MinInterval)
	}
	if s.Multiplier == 0 {
		s.Multiplier = DefaultDrainMultiplier
	}
	if o.BatchSize == 0 {
		o.BatchSize = DefaultDrainBatchSize
	}
	if o.MaxBatchSize == 0 {
		o.MaxBatchSize = max(DefaultDrainMaxBatchSize, o.BatchSize)
	}
	if o.MaxConcurrency == 0 {
		o.MaxConcurrency = DefaultDrainMaxConcurrency
	}
	return o
}

// validateOutbox reports problems with an outbox policy.
func validateOutbox(i int, o OutboxPolicy, add func(int, string, string, ...any)) {
	const f = "policy.outbox."
	if o.MaxDepth < 0 {
		add(i, f+"max_outbox_depth", "must not be negative, got %d", o.MaxDepth)
	}
	if o.DepthCacheTTL < 0 {
		add(i, f+"depth_cache_ttl", "must not be negative, got %s", o.DepthCacheTTL)
	}
	if o.Interval != 0 && o.Strategy.Type != "" {
		add(i, f+"drain_interval", "drain_strategy and drain_interval are mutually exclusive")
	}
	if o.Interval < 0 {
		add(i, f+"drain_interval", "must not be negative, got %s", o.Interval)
	}
	s := o.Strategy
	switch s.Type {
	case "", FixedPoll, AdaptiveBackoff:
	default:
		add(i, f+"drain_strategy.type", "%q is invalid; must be one of: fixed_poll, adaptive_backoff", s.Type)
	}
	if s.Interval < 0 || s.MinInterval < 0 || s.MaxInterval < 0 {
		add(i, f+"drain_strategy", "intervals must not be negative")
	}
	if s.MinInterval > 0 && s.MaxInterval > 0 && s.MinInterval > s.MaxInterval {
		add(i, f+"drain_strategy.min_interval", "must not exceed max_interval (%s > %s)", s.MinInterval, s.MaxInterval)
	}
	if s.Multiplier != 0 && !(s.Multiplier > 1) {
		add(i, f+"drain_strategy.multiplier", "must be > 1, got %g", s.Multiplier)
	}
	if o.BatchSize < 0 || o.MaxBatchSize < 0 || o.MaxConcurrency < 0 {
		add(i, f+"drain_batch_size", "batch sizes and concurrency must not be negative")
	}
	if o.BatchSize > 0 && o.MaxBatchSize > 0 && o.BatchSize > o.MaxBatchSize {
		add(i, f+"drain_max_batch_size", "must be at least drain_batch_size (%d < %d)", o.MaxBatchSize, o.BatchSize)
	}
}
