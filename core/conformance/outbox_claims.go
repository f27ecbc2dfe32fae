package conformance

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// claimCounts is what one claimed record says about its history.
type claimCounts struct{ ClaimCount, ReplayCount int }

// claimOne claims the single record of partition p and returns its
// counts, failing the test when Claim returns anything else.
func claimOne(ctx context.Context, t *testing.T, s ports.OutboxStore, id string, tk ports.LeaseToken) claimCounts {
	t.Helper()
	got := claim(ctx, t, s, "p", tk, 10)
	if len(got) != 1 || got[0].ID != id {
		t.Fatalf("Claim = %v, want [%s]", ids(got), id)
	}
	return claimCounts{got[0].ClaimCount, got[0].ReplayCount}
}

// outboxClaimCount follows one record through every way of being claimed
// again: each claim counts, whether it follows a replay or takes over a
// claim that went stale; Replay and refused claims leave the count alone.
func outboxClaimCount(ctx context.Context, t *testing.T, h OutboxHarness) {
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 1))
	id := recs[0].ID
	steps := []struct {
		name   string
		before func()
		want   claimCounts
	}{
		{"first claim", func() {}, claimCounts{1, 0}},
		{"claim after a replay", func() {
			replay(ctx, t, h.Store, id, tok(1), errSendFailed, h.Clock.Now())
		}, claimCounts{2, 1}},
		{"stale claim taken over", func() {
			h.Clock.Advance(h.StaleClaimAge)
		}, claimCounts{3, 1}},
		{"a fenced-off claim and a claim of nothing do not count", func() {
			if _, err := h.Store.Claim(ctx, "p", tok(0), 10); err == nil {
				t.Error("Claim with a token older than the partition's mark succeeded")
			}
			h.Clock.Advance(h.StaleClaimAge)
			replay(ctx, t, h.Store, id, tok(1), errSendFailed, h.Clock.Now().Add(h.StaleClaimAge))
			wantClaim(ctx, t, h.Store, "p", tok(1), nil)
			h.Clock.Advance(h.StaleClaimAge)
		}, claimCounts{4, 2}},
	}
	for _, st := range steps {
		st.before()
		if diff := cmp.Diff(st.want, claimOne(ctx, t, h.Store, id, tok(1))); diff != "" {
			t.Errorf("%s: counts of the claimed record (-want +got):\n%s", st.name, diff)
		}
	}
}

// outboxClaimCountPersisted checks that Persist keeps a ClaimCount the
// caller brings, as it keeps ReplayCount, and that the next claim counts
// on from it.
func outboxClaimCountPersisted(ctx context.Context, t *testing.T, h OutboxHarness) {
	r := newRecord("p", 0)
	r.ClaimCount, r.ReplayCount = 4, 3
	recs := persist(ctx, t, h.Store, []ports.OutboxRecord{r})
	if diff := cmp.Diff(claimCounts{5, 3}, claimOne(ctx, t, h.Store, recs[0].ID, noTok)); diff != "" {
		t.Errorf("counts of a record persisted with history, once claimed (-want +got):\n%s", diff)
	}
}

// outboxClaimCountSurvivesReopen is the crash the count exists for: a
// drainer claims a record and dies before it can complete or replay it.
// The claim is counted all the same once the store is opened again.
func outboxClaimCountSurvivesReopen(ctx context.Context, t *testing.T, h OutboxHarness) {
	if h.Reopen == nil {
		t.Skip("the harness cannot reopen its store")
	}
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 1))
	id := recs[0].ID
	for crash := 1; crash <= 3; crash++ {
		if got := claimOne(ctx, t, h.Store, id, noTok); got.ClaimCount != crash {
			t.Errorf("claim %d: ClaimCount %d, want %d", crash, got.ClaimCount, crash)
		}
		reopenOutbox(t, &h)
		h.Clock.Advance(h.StaleClaimAge)
	}
	if diff := cmp.Diff(claimCounts{4, 0}, claimOne(ctx, t, h.Store, id, noTok)); diff != "" {
		t.Errorf("counts after three claims lost to crashes (-want +got):\n%s", diff)
	}
}
