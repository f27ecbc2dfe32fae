package memory

import (
	"context"
	"slices"
	"sync"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// ledger is the managed-subscriptions role of a Store: per session key,
// the set last saved, ordered by filter.
type ledger struct {
	mu sync.Mutex
	m  map[string][]ports.ManagedSubscription
}

// LoadSubscriptions returns the set last saved for session, ordered by
// filter; baselined is false when nothing was saved for it.
func (s *Store) LoadSubscriptions(ctx context.Context, session string) ([]ports.ManagedSubscription, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	if _, err := ports.CheckSubscriptions(session, nil); err != nil {
		return nil, false, err
	}
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	subs, ok := s.subs.m[session]
	return slices.Clone(subs), ok, nil
}

// SaveSubscriptions replaces the set recorded for session.
func (s *Store) SaveSubscriptions(ctx context.Context, session string, subs []ports.ManagedSubscription) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	sorted, err := ports.CheckSubscriptions(session, subs)
	if err != nil {
		return err
	}
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	if s.subs.m == nil {
		s.subs.m = make(map[string][]ports.ManagedSubscription)
	}
	if sorted == nil {
		sorted = []ports.ManagedSubscription{}
	}
	s.subs.m[session] = sorted
	return nil
}
