package tenant

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// ErrNotInFlight is returned by MemoryTracker.DecrementInFlight for a
// tenant whose in-flight count is already zero.
var ErrNotInFlight = errors.New("tenant: in-flight count is already zero")

// MemoryTracker keeps usage counters in process memory. It implements
// TenantUsageTracker and TenantUsageReader, so together with a validator
// it enables the in-flight ceiling for a single process. Counts are lost on
// restart, which also means a crash leaks nothing.
//
// It keeps one small entry per distinct tenant ID for its lifetime; put a
// validator in front when tenant IDs come from untrusted producers. The
// zero value is ready to use and it is safe for concurrent use.
type MemoryTracker struct {
	m sync.Map // tenant ID -> *memCounts
}

type memCounts struct {
	inFlight, processed atomic.Int64
}

var (
	_ TenantUsageTracker = (*MemoryTracker)(nil)
	_ TenantUsageReader  = (*MemoryTracker)(nil)
)

// NewMemoryTracker returns an empty tracker.
func NewMemoryTracker() *MemoryTracker { return &MemoryTracker{} }

func (t *MemoryTracker) counts(id string) *memCounts {
	if v, ok := t.m.Load(id); ok {
		return v.(*memCounts)
	}
	v, _ := t.m.LoadOrStore(id, new(memCounts))
	return v.(*memCounts)
}

// IncrementInFlight adds one in-flight delivery for tenantID.
func (t *MemoryTracker) IncrementInFlight(_ context.Context, tenantID string) error {
	t.counts(tenantID).inFlight.Add(1)
	return nil
}

// DecrementInFlight removes one in-flight delivery for tenantID. It never
// goes below zero; trying returns ErrNotInFlight.
func (t *MemoryTracker) DecrementInFlight(_ context.Context, tenantID string) error {
	c := t.counts(tenantID)
	for {
		n := c.inFlight.Load()
		if n <= 0 {
			return ErrNotInFlight
		}
		if c.inFlight.CompareAndSwap(n, n-1) {
			return nil
		}
	}
}

// IncrementProcessed adds one processed message for tenantID.
func (t *MemoryTracker) IncrementProcessed(_ context.Context, tenantID string) error {
	t.counts(tenantID).processed.Add(1)
	return nil
}

// Usage returns tenantID's counters; zero for a tenant never seen.
func (t *MemoryTracker) Usage(_ context.Context, tenantID string) (Usage, error) {
	v, ok := t.m.Load(tenantID)
	if !ok {
		return Usage{}, nil
	}
	c := v.(*memCounts)
	return Usage{InFlight: c.inFlight.Load(), Processed: c.processed.Load()}, nil
}

// Snapshot returns every tenant's counters.
func (t *MemoryTracker) Snapshot() map[string]Usage {
	out := map[string]Usage{}
	t.m.Range(func(k, v any) bool {
		c := v.(*memCounts)
		out[k.(string)] = Usage{InFlight: c.inFlight.Load(), Processed: c.processed.Load()}
		return true
	})
	return out
}
