package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// testStaleClaimAge is the stale-claim age of the conformance stores.
const testStaleClaimAge = 45 * time.Second

// testStart is the fake clock's start.
func testStart() time.Time { return time.Date(2031, time.May, 6, 7, 8, 9, 123456789, time.UTC) }

// reopener opens a store on one file and reopens it on demand; Close
// closes whichever store is current.
type reopener struct {
	t     *testing.T
	path  string
	clock *clock.Fake
	cur   *Store
}

func newReopener(t *testing.T) *reopener {
	r := &reopener{t: t, path: filepath.Join(t.TempDir(), "store.db"), clock: clock.NewFake(testStart())}
	r.cur = r.open()
	return r
}

func (r *reopener) open() *Store {
	r.t.Helper()
	s, err := Open(r.t.Context(), r.path, WithClock(r.clock), WithStaleClaimAge(testStaleClaimAge))
	if err != nil {
		r.t.Fatalf("Open: %v", err)
	}
	return s
}

func (r *reopener) reopen(t *testing.T) *Store {
	t.Helper()
	if err := r.cur.Close(t.Context()); err != nil {
		t.Fatalf("Close before reopen: %v", err)
	}
	r.cur = r.open()
	return r.cur
}

func (r *reopener) close(ctx context.Context) error { return r.cur.Close(ctx) }

func TestOutboxConformance(t *testing.T) {
	conformance.RunOutboxStore(t, func(t *testing.T) conformance.OutboxHarness {
		r := newReopener(t)
		return conformance.OutboxHarness{
			Store: r.cur, Clock: r.clock, StaleClaimAge: testStaleClaimAge,
			Reopen: func(t *testing.T) ports.OutboxStore { return r.reopen(t) },
			Close:  r.close,
		}
	})
}

func TestDLQConformance(t *testing.T) {
	conformance.RunDLQStore(t, func(t *testing.T) conformance.DLQHarness {
		r := newReopener(t)
		return conformance.DLQHarness{
			Store:  r.cur,
			Reopen: func(t *testing.T) ports.DLQStore { return r.reopen(t) },
			Close:  r.close,
		}
	})
}

func TestSubscriptionLedgerConformance(t *testing.T) {
	conformance.RunSubscriptionLedger(t, func(t *testing.T) conformance.LedgerHarness {
		r := newReopener(t)
		return conformance.LedgerHarness{
			Ledger: r.cur,
			Reopen: func(t *testing.T) ports.SubscriptionLedger { return r.reopen(t) },
			Close:  r.close,
		}
	})
}

func TestLeaseConformance(t *testing.T) {
	conformance.RunLeaseStore(t, func(t *testing.T) conformance.LeaseHarness {
		r := newReopener(t)
		return conformance.LeaseHarness{
			Store: r.cur, Clock: r.clock,
			Reopen: func(t *testing.T) ports.LeaseStore { return r.reopen(t) },
			Close:  r.close,
		}
	})
}
