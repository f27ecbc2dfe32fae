package dynamodb

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// suiteTimeout bounds each conformance subtest: the concurrency subtests
// send a few thousand requests to the emulator.
const suiteTimeout = 60 * time.Second

// reopener opens stores on one set of tables; a reopen is a new Store
// (as a restarted bridge would make) on the same tables.
type reopener struct {
	emu    *emulator
	prefix string
	clock  *clock.Fake
	cur    *Store
}

func newReopener(t *testing.T, emu *emulator, opts ...Option) *reopener {
	r := &reopener{emu: emu, prefix: emu.prefix(), clock: clock.NewFake(testStart())}
	r.cur = emu.open(t, r.prefix, r.clock, opts...)
	return r
}

func (r *reopener) reopen(t *testing.T) *Store {
	t.Helper()
	if err := r.cur.Close(t.Context()); err != nil {
		t.Fatalf("Close before reopen: %v", err)
	}
	r.cur = r.emu.open(t, r.prefix, r.clock)
	return r.cur
}

func (r *reopener) close(ctx context.Context) error { return r.cur.Close(ctx) }

func TestOutboxConformance(t *testing.T) {
	emu := newEmulator(t)
	conformance.RunOutboxStore(t, func(t *testing.T) conformance.OutboxHarness {
		r := newReopener(t, emu)
		return conformance.OutboxHarness{
			Store: r.cur, Clock: r.clock, StaleClaimAge: testStaleClaimAge,
			Reopen:  func(t *testing.T) ports.OutboxStore { return r.reopen(t) },
			Close:   r.close,
			Timeout: suiteTimeout,
		}
	})
}

func TestDLQConformance(t *testing.T) {
	emu := newEmulator(t)
	conformance.RunDLQStore(t, func(t *testing.T) conformance.DLQHarness {
		r := newReopener(t, emu)
		return conformance.DLQHarness{
			Store:   r.cur,
			Reopen:  func(t *testing.T) ports.DLQStore { return r.reopen(t) },
			Close:   r.close,
			Timeout: suiteTimeout,
		}
	})
}

func TestSubscriptionLedgerConformance(t *testing.T) {
	emu := newEmulator(t)
	conformance.RunSubscriptionLedger(t, func(t *testing.T) conformance.LedgerHarness {
		r := newReopener(t, emu)
		return conformance.LedgerHarness{
			Ledger:  r.cur,
			Reopen:  func(t *testing.T) ports.SubscriptionLedger { return r.reopen(t) },
			Close:   r.close,
			Timeout: suiteTimeout,
		}
	})
}

func TestLeaseConformance(t *testing.T) {
	emu := newEmulator(t)
	conformance.RunLeaseStore(t, func(t *testing.T) conformance.LeaseHarness {
		r := newReopener(t, emu)
		return conformance.LeaseHarness{
			Store: r.cur, Clock: r.clock,
			Reopen:  func(t *testing.T) ports.LeaseStore { return r.reopen(t) },
			Close:   r.close,
			Timeout: suiteTimeout,
		}
	})
}
