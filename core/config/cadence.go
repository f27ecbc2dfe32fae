package config

import (
	"fmt"
	"math"
	"time"
)

// Cadence is a route session's lease timing with every derived value
// resolved, as the session manager runs it.
type Cadence struct {
	// LeaseTTL is how long a lease lasts without renewal.
	LeaseTTL time.Duration
	// MaxRenewFails is the number of failed renewals before step-down.
	MaxRenewFails int
	// RenewInterval is the wait between renewals.
	RenewInterval time.Duration
	// RenewJitter is the largest random delay added to a renewal.
	RenewJitter time.Duration
	// RenewCallTimeout bounds one renew call.
	RenewCallTimeout time.Duration
	// AcquirePollInterval is how often a standby tries to take the lease.
	AcquirePollInterval time.Duration
	// Pinned is true when renew_interval was set explicitly.
	Pinned bool
	// JitterTrimmed is true when derivation had to shrink the jitter to
	// keep the renew span inside the lease.
	JitterTrimmed bool
}

// Derivation constants of Cadence.
const (
	// maxRenewCallTimeout and minRenewCallTimeout bound a derived
	// renew_call_timeout.
	maxRenewCallTimeout = 5 * time.Second
	minRenewCallTimeout = time.Second
	// maxAcquirePoll caps a derived acquire_poll_interval.
	maxAcquirePoll = 5 * time.Second
	// jitterDivisor derives the jitter from the renew interval.
	jitterDivisor = 24
	// expiryMargin keeps the renew span strictly inside the lease.
	expiryMargin = time.Millisecond
)

// Cadence resolves the lease timing of s, and returns an error when a
// derived cadence cannot fit the lease. Rules:
//
//   - lease_ttl defaults to 360s and max_renew_fails to 3;
//   - with renew_interval pinned, lease_renew_jitter defaults to
//     renew_interval/24 and renew_call_timeout to renew_interval/2 clamped
//     to [1s, 5s];
//   - with renew_interval derived, each renewal gets a slot of
//     lease_ttl/max_renew_fails; renew_call_timeout defaults to half a slot
//     clamped to [1s, 5s], the jitter to a slot/24, and renew_interval is
//     what is left of the slot after the call timeout, half the jitter and
//     1ms, so (renew_interval + jitter/2 + renew_call_timeout) ×
//     max_renew_fails < lease_ttl holds by construction. When the slot is
//     too short the jitter is trimmed first; if the interval would still
//     fall below 250ms, the cadence is rejected;
//   - acquire_poll_interval defaults to min(renew_interval, lease_ttl/4, 5s).
func (s *RouteSession) Cadence() (Cadence, error) {
	c := Cadence{
		LeaseTTL:      orDefault(s.LeaseTTL, DefaultLeaseTTL),
		MaxRenewFails: orDefault(s.MaxRenewFails, DefaultMaxRenewFails),
		RenewInterval: s.RenewInterval,
		Pinned:        s.RenewInterval != 0,
	}
	if c.MaxRenewFails < 1 {
		return c, fmt.Errorf("max_renew_fails must be at least 1, got %d", c.MaxRenewFails)
	}
	if c.Pinned {
		c.RenewJitter = orDefault(s.LeaseRenewJitter, (c.RenewInterval / jitterDivisor).Truncate(time.Millisecond))
		c.RenewCallTimeout = orDefault(s.RenewCallTimeout, clampDur(c.RenewInterval/2, minRenewCallTimeout, maxRenewCallTimeout))
	} else {
		slot := c.LeaseTTL / time.Duration(c.MaxRenewFails)
		c.RenewCallTimeout = orDefault(s.RenewCallTimeout, clampDur(slot/2, minRenewCallTimeout, maxRenewCallTimeout))
		c.RenewJitter = orDefault(s.LeaseRenewJitter, (slot / jitterDivisor).Truncate(time.Millisecond))
		room := slot - c.RenewCallTimeout - expiryMargin
		if room-c.RenewJitter/2 < MinCadence {
			trimmed := max(0, 2*(room-MinCadence)).Truncate(time.Millisecond)
			c.JitterTrimmed = trimmed < c.RenewJitter
			c.RenewJitter = min(c.RenewJitter, trimmed)
		}
		c.RenewInterval = (room - c.RenewJitter/2).Truncate(time.Millisecond)
		if c.RenewInterval < MinCadence {
			return c, fmt.Errorf("lease_ttl %s over max_renew_fails %d leaves %s per renewal, too little for a %s renew_call_timeout and a renew interval of at least %s; lower max_renew_fails, raise lease_ttl or pin renew_interval",
				c.LeaseTTL, c.MaxRenewFails, slot, c.RenewCallTimeout, MinCadence)
		}
	}
	c.AcquirePollInterval = orDefault(s.AcquirePollInterval, min(c.RenewInterval, c.LeaseTTL/4, maxAcquirePoll))
	return c, nil
}

// RenewSpan is the longest time max_renew_fails failing renewals can take:
// (renew_interval + jitter/2 + renew_call_timeout) × max_renew_fails.
// It saturates at the largest duration instead of overflowing.
func (c Cadence) RenewSpan() time.Duration {
	per := c.RenewInterval + c.RenewJitter/2 + c.RenewCallTimeout
	n := time.Duration(max(c.MaxRenewFails, 0))
	if per < 0 || (n > 0 && per > math.MaxInt64/n) {
		return math.MaxInt64
	}
	return per * n
}

func clampDur(d, lo, hi time.Duration) time.Duration {
	return min(max(d, lo), hi)
}
