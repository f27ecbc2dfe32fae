package conformance

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// LedgerHarness is what RunSubscriptionLedger needs of a store.
type LedgerHarness struct {
	// Ledger is a fresh store in which nothing was ever saved.
	Ledger ports.SubscriptionLedger
	// Reopen, when set, closes the current store and returns a new one on
	// the same data. The durability subtest is skipped without it.
	Reopen func(t *testing.T) ports.SubscriptionLedger
	// Close, when set, releases the harness when the subtest ends.
	Close StoreClose
	// Timeout bounds the subtest; zero means DefaultStoreTimeout.
	Timeout time.Duration
}

// RunSubscriptionLedger checks a ports.SubscriptionLedger: a session never
// saved is not baselined; a save replaces the whole set and a load returns
// it ordered by filter; an empty set is a baseline; sessions are kept
// apart; filters with MQTT wildcards and any Unicode survive unchanged;
// an empty session key, an empty filter or a duplicate filter fail with
// INVALID_CONFIG and change nothing; and, when the harness can reopen the
// store, the sets survive a reopen. newHarness is called once per subtest.
func RunSubscriptionLedger(t *testing.T, newHarness func(t *testing.T) LedgerHarness) {
	t.Helper()
	cases := []struct {
		name string
		run  func(ctx context.Context, t *testing.T, h LedgerHarness)
	}{
		{"NeverSaved", ledgerNeverSaved},
		{"SaveReplaces", ledgerSaveReplaces},
		{"EmptySetIsABaseline", ledgerEmptyBaseline},
		{"SessionsApart", ledgerSessionsApart},
		{"FiltersKeptVerbatim", ledgerVerbatim},
		{"BadInputChangesNothing", ledgerBadInput},
		{"SurvivesReopen", ledgerReopen},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			ctx := storeContext(t, h.Timeout, h.Close)
			tc.run(ctx, t, h)
		})
	}
}

func load(ctx context.Context, t *testing.T, l ports.SubscriptionLedger, session string) ([]ports.ManagedSubscription, bool) {
	t.Helper()
	subs, ok, err := l.LoadSubscriptions(ctx, session)
	if err != nil {
		t.Fatalf("LoadSubscriptions(%q): %v", session, err)
	}
	return subs, ok
}

func save(ctx context.Context, t *testing.T, l ports.SubscriptionLedger, session string, subs ...ports.ManagedSubscription) {
	t.Helper()
	if err := l.SaveSubscriptions(ctx, session, subs); err != nil {
		t.Fatalf("SaveSubscriptions(%q): %v", session, err)
	}
}

// wantSet compares a loaded set with want, both as given (the ledger
// orders by filter; want is written in that order).
func wantSet(t *testing.T, what string, got []ports.ManagedSubscription, want ...ports.ManagedSubscription) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

func ledgerNeverSaved(ctx context.Context, t *testing.T, h LedgerHarness) {
	subs, ok := load(ctx, t, h.Ledger, "tcp://broker:1883|bridge-1")
	if ok || len(subs) != 0 {
		t.Errorf("a session never saved: baselined %v, %d subscriptions; want false, 0", ok, len(subs))
	}
}

func ledgerSaveReplaces(ctx context.Context, t *testing.T, h LedgerHarness) {
	const s = "session-a"
	save(ctx, t, h.Ledger, s, ports.ManagedSubscription{Filter: "b/#", QoS: 1}, ports.ManagedSubscription{Filter: "a/+", QoS: 2})
	got, ok := load(ctx, t, h.Ledger, s)
	if !ok {
		t.Fatal("not baselined after a save")
	}
	wantSet(t, "after the first save", got, ports.ManagedSubscription{Filter: "a/+", QoS: 2}, ports.ManagedSubscription{Filter: "b/#", QoS: 1})
	save(ctx, t, h.Ledger, s, ports.ManagedSubscription{Filter: "c", QoS: 0}, ports.ManagedSubscription{Filter: "b/#", QoS: 0})
	got, _ = load(ctx, t, h.Ledger, s)
	wantSet(t, "after the second save", got, ports.ManagedSubscription{Filter: "b/#", QoS: 0}, ports.ManagedSubscription{Filter: "c", QoS: 0})
}

func ledgerEmptyBaseline(ctx context.Context, t *testing.T, h LedgerHarness) {
	const s = "session-empty"
	save(ctx, t, h.Ledger, s)
	got, ok := load(ctx, t, h.Ledger, s)
	if !ok || len(got) != 0 {
		t.Errorf("after saving an empty set: baselined %v, %v; want true, none", ok, got)
	}
	save(ctx, t, h.Ledger, s, ports.ManagedSubscription{Filter: "x", QoS: 1})
	save(ctx, t, h.Ledger, s)
	got, ok = load(ctx, t, h.Ledger, s)
	if !ok || len(got) != 0 {
		t.Errorf("after emptying a set: baselined %v, %v; want true, none", ok, got)
	}
}

func ledgerSessionsApart(ctx context.Context, t *testing.T, h LedgerHarness) {
	save(ctx, t, h.Ledger, "one", ports.ManagedSubscription{Filter: "t/1", QoS: 1})
	save(ctx, t, h.Ledger, "one-two", ports.ManagedSubscription{Filter: "t/12", QoS: 1})
	save(ctx, t, h.Ledger, "two", ports.ManagedSubscription{Filter: "t/2", QoS: 0})
	save(ctx, t, h.Ledger, "two")
	got, _ := load(ctx, t, h.Ledger, "one")
	wantSet(t, "session one", got, ports.ManagedSubscription{Filter: "t/1", QoS: 1})
	got, _ = load(ctx, t, h.Ledger, "one-two")
	wantSet(t, "session one-two", got, ports.ManagedSubscription{Filter: "t/12", QoS: 1})
	if _, ok := load(ctx, t, h.Ledger, "three"); ok {
		t.Error("a session never saved is baselined")
	}
}

func ledgerVerbatim(ctx context.Context, t *testing.T, h LedgerHarness) {
	const s = "münchen|client/1 #"
	subs := []ports.ManagedSubscription{
		{Filter: "$share/g/a/+/b", QoS: 1},
		{Filter: "#", QoS: 0},
		{Filter: "a//b/ c", QoS: 2},
		{Filter: "z/\u00e9t\u00e9/\U0001F600/'\"%_;", QoS: 1},
	}
	save(ctx, t, h.Ledger, s, subs...)
	got, _ := load(ctx, t, h.Ledger, s)
	wantSet(t, "filters read back", got, subs[1], subs[0], subs[2], subs[3])
}

func ledgerBadInput(ctx context.Context, t *testing.T, h LedgerHarness) {
	const s = "kept"
	save(ctx, t, h.Ledger, s, ports.ManagedSubscription{Filter: "a", QoS: 1})
	bad := []struct {
		name    string
		session string
		subs    []ports.ManagedSubscription
	}{
		{"empty session", "", []ports.ManagedSubscription{{Filter: "a"}}},
		{"empty filter", s, []ports.ManagedSubscription{{Filter: "b"}, {Filter: ""}}},
		{"duplicate filter", s, []ports.ManagedSubscription{{Filter: "b", QoS: 1}, {Filter: "b", QoS: 2}}},
	}
	for _, b := range bad {
		err := h.Ledger.SaveSubscriptions(ctx, b.session, b.subs)
		if !errors.Is(err, fault.ErrInvalidConfig) {
			t.Errorf("%s: SaveSubscriptions = %v, want INVALID_CONFIG", b.name, err)
		}
	}
	if _, _, err := h.Ledger.LoadSubscriptions(ctx, ""); !errors.Is(err, fault.ErrInvalidConfig) {
		t.Errorf("LoadSubscriptions of an empty session = %v, want INVALID_CONFIG", err)
	}
	got, _ := load(ctx, t, h.Ledger, s)
	wantSet(t, "the set after refused saves", got, ports.ManagedSubscription{Filter: "a", QoS: 1})
}

func ledgerReopen(ctx context.Context, t *testing.T, h LedgerHarness) {
	if h.Reopen == nil {
		t.Skip("the harness cannot reopen the store")
	}
	save(ctx, t, h.Ledger, "durable", ports.ManagedSubscription{Filter: "d/#", QoS: 1})
	save(ctx, t, h.Ledger, "durable-empty")
	l := h.Reopen(t)
	got, ok := load(ctx, t, l, "durable")
	if !ok {
		t.Fatal("the set was lost on reopen")
	}
	wantSet(t, "after reopen", got, ports.ManagedSubscription{Filter: "d/#", QoS: 1})
	if _, ok := load(ctx, t, l, "durable-empty"); !ok {
		t.Error("an empty baseline was lost on reopen")
	}
}
