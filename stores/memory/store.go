package memory

import (
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/streamlog"
)

// Store keeps outbox records, DLQ entries, leases and managed
// subscriptions in memory. The three
// roles share only the clock; each has its own lock. Build it with New.
type Store struct {
	clk   ports.Clock
	stale time.Duration
	ob    outbox
	dlq   dlq
	lease leases
	subs  ledger
	// streams holds the stream logs (streamlog.go).
	streams *streamlog.Memory
}

// Compile-time checks that Store fills every role.
var (
	_ ports.OutboxStore        = (*Store)(nil)
	_ ports.DLQStore           = (*Store)(nil)
	_ ports.LeaseStore         = (*Store)(nil)
	_ ports.SubscriptionLedger = (*Store)(nil)
)

// Option configures a Store.
type Option func(*Store)

// WithClock sets the time source for CreatedAt, due times, claim ages and
// lease expiry. The default is the system clock.
func WithClock(c ports.Clock) Option {
	return func(s *Store) {
		if c != nil {
			s.clk = c
		}
	}
}

// WithStaleClaimAge sets how long a claim may stay uncompleted before its
// records can be claimed again. Zero or less keeps the default,
// ports.DefaultStaleClaimAge.
func WithStaleClaimAge(d time.Duration) Option {
	return func(s *Store) {
		if d > 0 {
			s.stale = d
		}
	}
}

// New returns an empty store.
func New(opts ...Option) *Store {
	s := &Store{clk: clock.System(), stale: ports.DefaultStaleClaimAge}
	for _, o := range opts {
		o(s)
	}
	s.ob.init()
	s.dlq.init()
	s.lease.init()
	s.streams = streamlog.NewMemory(s.clk)
	return s
}

// StaleClaimAge returns the stale-claim age the store was built with.
func (s *Store) StaleClaimAge() time.Duration { return s.stale }

// copyEnvelope returns a deep copy of env, payload included, or nil.
func copyEnvelope(env *messaging.Envelope) *messaging.Envelope {
	if env == nil {
		return nil
	}
	c := env.Clone()
	c.SetPayload(env.Payload())
	return c
}
