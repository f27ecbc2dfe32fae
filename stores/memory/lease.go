package memory

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// leases is the lease role of a Store.
type leases struct {
	mu sync.Mutex
	m  map[string]*leaseState
}

// leaseState is one stored lease. A released lease keeps its token, so
// that the next Acquire continues from its version.
type leaseState struct {
	tok      ports.LeaseToken
	expires  time.Time
	released bool
}

func (l *leases) init() { l.m = make(map[string]*leaseState) }

// Acquire takes the lease key for owner until ttl from now. It succeeds
// when the lease is free, expired, released or already held by owner, and
// then issues a token one version above the previous one; it fails with
// ALREADY_EXISTS while another owner holds the lease, and with
// INVALID_CONFIG for an empty owner or a ttl of zero or less.
func (s *Store) Acquire(ctx context.Context, key, owner string, ttl time.Duration) (ports.LeaseToken, error) {
	if err := ctx.Err(); err != nil {
		return ports.LeaseToken{}, err
	}
	if err := checkTTL(ttl); err != nil {
		return ports.LeaseToken{}, err
	}
	if owner == "" {
		return ports.LeaseToken{}, fault.ErrInvalidConfig.WithMessage("lease owner must not be empty")
	}
	now := s.clk.Now()
	l := &s.lease
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.m[key]
	if st == nil {
		st = &leaseState{}
		l.m[key] = st
	} else if st.tok.Owner != owner && st.held(now) {
		return ports.LeaseToken{}, fault.ErrAlreadyExists.WithMessage(fmt.Sprintf(
			"lease %q is held by %q until %s", key, st.tok.Owner, st.expires.Format(time.RFC3339Nano)))
	}
	st.tok = ports.LeaseToken{Owner: owner, Version: st.tok.Version + 1}
	st.expires = now.Add(ttl)
	st.released = false
	return st.tok, nil
}

// Renew extends the lease to ttl from now. tok must be the latest token
// issued for key and not released; the lease may have expired meanwhile
// as long as nobody took it over. Otherwise Renew fails with
// STALE_FENCING_TOKEN.
func (s *Store) Renew(ctx context.Context, key string, tok ports.LeaseToken, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkTTL(ttl); err != nil {
		return err
	}
	now := s.clk.Now()
	l := &s.lease
	l.mu.Lock()
	defer l.mu.Unlock()
	st, err := l.current(key, tok)
	if err != nil {
		return err
	}
	st.expires = now.Add(ttl)
	return nil
}

// Release gives the lease up at once; the next Acquire, by any owner,
// succeeds with a higher version. tok must be current, as for Renew.
func (s *Store) Release(ctx context.Context, key string, tok ports.LeaseToken) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := s.clk.Now()
	l := &s.lease
	l.mu.Lock()
	defer l.mu.Unlock()
	st, err := l.current(key, tok)
	if err != nil {
		return err
	}
	st.released = true
	if st.expires.After(now) {
		st.expires = now
	}
	return nil
}

// Read returns the stored lease of key; ok is false when it was never
// taken. A released lease is reported with ExpiresAt at the release time.
func (s *Store) Read(ctx context.Context, key string) (ports.Lease, bool, error) {
	if err := ctx.Err(); err != nil {
		return ports.Lease{}, false, err
	}
	l := &s.lease
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.m[key]
	if st == nil {
		return ports.Lease{}, false, nil
	}
	return ports.Lease{Key: key, Token: st.tok, ExpiresAt: st.expires}, true, nil
}

// current returns the state of key when tok is its live token.
func (l *leases) current(key string, tok ports.LeaseToken) (*leaseState, error) {
	st := l.m[key]
	if st == nil || st.released || st.tok != tok {
		return nil, fault.ErrStaleFencingToken.WithMessage(fmt.Sprintf(
			"lease %q: token version %d of %q is not current", key, tok.Version, tok.Owner))
	}
	return st, nil
}

// held reports whether the lease is taken and unexpired at now.
func (st *leaseState) held(now time.Time) bool {
	return !st.released && now.Before(st.expires)
}

func checkTTL(ttl time.Duration) error {
	if ttl <= 0 {
		return fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("lease ttl must be positive, got %v", ttl))
	}
	return nil
}
