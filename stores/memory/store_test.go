package memory_test

import (
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/stores/memory"
)

// start is an arbitrary instant with sub-second digits, so that a store
// rounding times shows up.
var start = time.Date(2031, time.July, 8, 9, 10, 11, 123456789, time.UTC)

const staleAge = 45 * time.Second

func newStore(t *testing.T) (*memory.Store, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(start)
	return memory.New(memory.WithClock(clk), memory.WithStaleClaimAge(staleAge)), clk
}

func TestOutboxConformance(t *testing.T) {
	conformance.RunOutboxStore(t, func(t *testing.T) conformance.OutboxHarness {
		s, clk := newStore(t)
		return conformance.OutboxHarness{Store: s, Clock: clk, StaleClaimAge: s.StaleClaimAge()}
	})
}

func TestDLQConformance(t *testing.T) {
	conformance.RunDLQStore(t, func(t *testing.T) conformance.DLQHarness {
		s, _ := newStore(t)
		return conformance.DLQHarness{Store: s}
	})
}

func TestLeaseConformance(t *testing.T) {
	conformance.RunLeaseStore(t, func(t *testing.T) conformance.LeaseHarness {
		s, clk := newStore(t)
		return conformance.LeaseHarness{Store: s, Clock: clk}
	})
}

func TestSubscriptionLedgerConformance(t *testing.T) {
	conformance.RunSubscriptionLedger(t, func(t *testing.T) conformance.LedgerHarness {
		s, _ := newStore(t)
		return conformance.LedgerHarness{Ledger: s, Reopen: func(*testing.T) ports.SubscriptionLedger { return s }}
	})
}

// TestConformanceKeepingTheStore runs the suites with a Reopen that hands
// back the same store: the memory store keeps everything as long as it is
// not dropped, and this exercises the durability subtests' own logic.
func TestConformanceKeepingTheStore(t *testing.T) {
	t.Run("Outbox", func(t *testing.T) {
		conformance.RunOutboxStore(t, func(t *testing.T) conformance.OutboxHarness {
			s, clk := newStore(t)
			return conformance.OutboxHarness{Store: s, Clock: clk, StaleClaimAge: staleAge,
				Reopen: func(*testing.T) ports.OutboxStore { return s }}
		})
	})
	t.Run("DLQ", func(t *testing.T) {
		conformance.RunDLQStore(t, func(t *testing.T) conformance.DLQHarness {
			s, _ := newStore(t)
			return conformance.DLQHarness{Store: s, Reopen: func(*testing.T) ports.DLQStore { return s }}
		})
	})
	t.Run("Lease", func(t *testing.T) {
		conformance.RunLeaseStore(t, func(t *testing.T) conformance.LeaseHarness {
			s, clk := newStore(t)
			return conformance.LeaseHarness{Store: s, Clock: clk, Reopen: func(*testing.T) ports.LeaseStore { return s }}
		})
	})
}
