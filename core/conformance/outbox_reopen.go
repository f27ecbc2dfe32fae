package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// reopenOutbox swaps h.Store for a reopened one, or skips the subtest.
func reopenOutbox(t *testing.T, h *OutboxHarness) {
	t.Helper()
	if h.Reopen == nil {
		t.Skip("the harness cannot reopen its store")
	}
	h.Store = h.Reopen(t)
	if h.Store == nil {
		t.Fatal("Reopen returned no store")
	}
}

func outboxReopen(ctx context.Context, t *testing.T, h OutboxHarness) {
	if h.Reopen == nil {
		t.Skip("the harness cannot reopen its store")
	}
	first := h.Clock.Now()
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 6))
	other := persist(ctx, t, h.Store, newRecords("q", 0, 2))
	if got := claimIDs(ctx, t, h.Store, "p", noTok, 2); !equalIDs(got, ids(recs[:2])) {
		t.Fatalf("Claim = %v, want %v", got, ids(recs[:2]))
	}
	complete(ctx, t, h.Store, recs[0].ID, noTok)
	h.Clock.Advance(time.Second)
	next := h.Clock.Now().Add(time.Minute)
	replay(ctx, t, h.Store, recs[1].ID, noTok, errSendFailed, next)
	claimedAt := h.Clock.Now()
	if got := claimIDs(ctx, t, h.Store, "p", noTok, 1); !equalIDs(got, ids(recs[2:3])) {
		t.Fatalf("Claim = %v, want %v", got, ids(recs[2:3]))
	}

	reopenOutbox(t, &h)

	wantDepth(ctx, t, h.Store, "p", 5)
	wantDepth(ctx, t, h.Store, "q", 2)
	// recs[1] waits for its next attempt and recs[2] is still claimed.
	got := claim(ctx, t, h.Store, "p", noTok, 10)
	wantViews := func(rs []ports.OutboxRecord, firstAttempt time.Time) []recordView {
		out := make([]recordView, len(rs))
		for i, r := range rs {
			out[i] = recordViewOf(r)
			out[i].CreatedAt = first
			out[i].FirstAttemptAt = firstAttempt
		}
		return out
	}
	if diff := cmp.Diff(wantViews(recs[3:], h.Clock.Now()), viewsOf(got), storeCmpOpts); diff != "" {
		t.Errorf("records after reopen (-want +got):\n%s", diff)
	}
	h.Clock.Advance(time.Minute)
	replayed := wantViews(recs[1:3], first)
	replayed[0].ReplayCount, replayed[0].LastError, replayed[0].NextAttemptAt = 1, errSendFailed.Error(), next
	replayed[1].FirstAttemptAt = claimedAt
	h.Clock.Advance(h.StaleClaimAge)
	got = claim(ctx, t, h.Store, "p", noTok, 10)
	if diff := cmp.Diff(replayed, viewsOf(got[:min(2, len(got))]), storeCmpOpts); diff != "" {
		t.Errorf("replayed and claimed records after reopen (-want +got):\n%s", diff)
	}
	if !equalIDs(ids(got), ids(recs[1:])) {
		t.Errorf("Claim once everything is due = %v, want %v", ids(got), ids(recs[1:]))
	}
	wantClaim(ctx, t, h.Store, "q", noTok, ids(other))
}

func outboxReopenFencing(ctx context.Context, t *testing.T, h OutboxHarness) {
	if h.Reopen == nil {
		t.Skip("the harness cannot reopen its store")
	}
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 3))
	wantClaim(ctx, t, h.Store, "p", tok(5), ids(recs))
	reopenOutbox(t, &h)
	_, err := h.Store.Claim(ctx, "p", tok(4), 10)
	wantStale(t, "Claim with version 4 after reopen", err)
	wantStale(t, "Complete with version 4 after reopen", h.Store.Complete(ctx, recs[0].ID, tok(4)))
	wantDepth(ctx, t, h.Store, "p", 3)
	h.Clock.Advance(h.StaleClaimAge)
	wantClaim(ctx, t, h.Store, "p", tok(5), ids(recs))
}

// viewsOf returns the comparable views of records.
func viewsOf(rs []ports.OutboxRecord) []recordView {
	out := make([]recordView, len(rs))
	for i, r := range rs {
		out[i] = recordViewOf(r)
	}
	return out
}
