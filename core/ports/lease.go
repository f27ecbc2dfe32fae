package ports

import (
	"context"
	"time"
)

// LeaseToken proves ownership of a lease. Version grows by one every time
// the lease changes hands, so a store can refuse a write that carries an
// older version (fencing).
type LeaseToken struct {
	Owner   string
	Version uint64
}

// IsZero reports whether the token is the zero token, used by standalone
// deployments that drain without a lease.
func (t LeaseToken) IsZero() bool { return t.Owner == "" && t.Version == 0 }

// Lease is the stored state of one lease.
type Lease struct {
	Key       string
	Token     LeaseToken
	ExpiresAt time.Time
}

// LeaseStore coordinates single-active ownership between bridge instances.
//
// Acquire succeeds when the lease is free or expired, returning a token
// whose Version is higher than any earlier token for key; it fails with
// ALREADY_EXISTS while another owner holds an unexpired lease. Renew and
// Release fail with STALE_FENCING_TOKEN when tok is no longer current.
type LeaseStore interface {
	Acquire(ctx context.Context, key, owner string, ttl time.Duration) (LeaseToken, error)
	Renew(ctx context.Context, key string, tok LeaseToken, ttl time.Duration) error
	Release(ctx context.Context, key string, tok LeaseToken) error
	// Read returns the current lease; ok is false when none was ever taken.
	Read(ctx context.Context, key string) (lease Lease, ok bool, err error)
}
