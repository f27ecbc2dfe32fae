package cluster

import (
	"fmt"
	"time"
)

// Timing is a lease's resolved cadence. Every field must be positive;
// config.RouteSession.Cadence derives them from the route session block.
type Timing struct {
	// TTL is how long the lease lasts without a renewal.
	TTL time.Duration
	// RenewInterval is the wait between two renewals.
	RenewInterval time.Duration
	// RenewJitter is the largest random delay added to a renewal wait.
	RenewJitter time.Duration
	// RenewCallTimeout bounds one Acquire, Renew or Release call.
	RenewCallTimeout time.Duration
	// MaxRenewFails is how many renewals in a row may fail before the
	// manager steps down.
	MaxRenewFails int
	// StepDownGrace is how long holders get to finish in-flight writes
	// after the step-down began, before their term's context ends and the
	// lease is released.
	StepDownGrace time.Duration
	// AcquirePollInterval is how often a manager that does not hold the
	// lease tries to take it.
	AcquirePollInterval time.Duration
}

// validate lists the first problem of t, naming its field.
func (t Timing) validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"TTL", t.TTL}, {"RenewInterval", t.RenewInterval}, {"RenewCallTimeout", t.RenewCallTimeout},
		{"AcquirePollInterval", t.AcquirePollInterval}} {
		if d.v <= 0 {
			return fmt.Errorf("cluster: timing %s must be positive, got %s", d.name, d.v)
		}
	}
	if t.RenewJitter < 0 || t.StepDownGrace < 0 {
		return fmt.Errorf("cluster: timing RenewJitter and StepDownGrace must not be negative")
	}
	if t.MaxRenewFails < 1 {
		return fmt.Errorf("cluster: timing MaxRenewFails must be at least 1, got %d", t.MaxRenewFails)
	}
	return nil
}

// safetyMargin is how much earlier than the store a holder considers its
// lease over: a renewal's expiry is counted from the moment the call was
// sent, and the margin covers the clock skew between the instances that
// judge the same expiry.
func (t Timing) safetyMargin() time.Duration {
	return min(t.TTL/10, time.Second)
}
