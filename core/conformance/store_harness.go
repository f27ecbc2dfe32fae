package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// DefaultStoreTimeout bounds each store subtest when a harness leaves
// Timeout zero.
const DefaultStoreTimeout = 10 * time.Second

// StoreClose releases what a store harness holds: the store it built and
// any store a Reopen returned since. The suite calls it once, when the
// subtest ends.
type StoreClose func(ctx context.Context) error

// OutboxHarness is what RunOutboxStore needs for one subtest.
type OutboxHarness struct {
	// Store is a fresh, empty store.
	Store ports.OutboxStore
	// Clock is the clock Store was built with. The suite advances it to
	// make claims stale and scheduled records due; it never moves on its
	// own.
	Clock *clock.Fake
	// StaleClaimAge is the stale-claim age Store was built with; zero
	// means ports.DefaultStaleClaimAge.
	StaleClaimAge time.Duration
	// Reopen, when set, closes the current store and returns a new one on
	// the same data, built with the same Clock and StaleClaimAge. The
	// suite never touches the old store afterwards. Persistent stores set
	// it; the durability subtests are skipped without it.
	Reopen func(t *testing.T) ports.OutboxStore
	// Close, when set, releases the harness when the subtest ends.
	Close StoreClose
	// Timeout bounds the subtest; zero means DefaultStoreTimeout.
	Timeout time.Duration
}

// DLQHarness is what RunDLQStore needs for one subtest.
type DLQHarness struct {
	// Store is a fresh, empty store.
	Store ports.DLQStore
	// Reopen, when set, closes the current store and returns a new one on
	// the same data. The durability subtests are skipped without it.
	Reopen func(t *testing.T) ports.DLQStore
	// Close, when set, releases the harness when the subtest ends.
	Close StoreClose
	// Timeout bounds the subtest; zero means DefaultStoreTimeout.
	Timeout time.Duration
}

// LeaseHarness is what RunLeaseStore needs for one subtest.
type LeaseHarness struct {
	// Store is a fresh store in which no lease was ever taken.
	Store ports.LeaseStore
	// Clock is the clock Store was built with; the suite advances it to
	// let leases expire.
	Clock *clock.Fake
	// Reopen, when set, closes the current store and returns a new one on
	// the same data, built with the same Clock. The durability subtests
	// are skipped without it.
	Reopen func(t *testing.T) ports.LeaseStore
	// Close, when set, releases the harness when the subtest ends.
	Close StoreClose
	// Timeout bounds the subtest; zero means DefaultStoreTimeout.
	Timeout time.Duration
}

// storeContext returns a context that ends with the subtest or after the
// timeout (DefaultStoreTimeout when zero), and registers closeFn.
func storeContext(t *testing.T, timeout time.Duration, closeFn StoreClose) context.Context {
	t.Helper()
	if timeout <= 0 {
		timeout = DefaultStoreTimeout
	}
	closeOnCleanup(t, Timing{Timeout: timeout}, closeFn)
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	t.Cleanup(cancel)
	return ctx
}
