package conformance

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// errSendFailed is the cause the suites replay records with.
var errSendFailed = errors.New("target unavailable: connection refused")

func outboxStaleTakeover(ctx context.Context, t *testing.T, h OutboxHarness) {
	start := h.Clock.Now()
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 3))
	// Owner 1 claims the first record and dies.
	if got := claimIDs(ctx, t, h.Store, "p", tok(1), 1); !equalIDs(got, ids(recs[:1])) {
		t.Fatalf("Claim = %v, want %v", got, ids(recs[:1]))
	}
	h.Clock.Advance(h.StaleClaimAge - time.Nanosecond)
	// Owner 2 takes over: the first claim is not stale yet.
	if got := claimIDs(ctx, t, h.Store, "p", tok(2), 1); !equalIDs(got, ids(recs[1:2])) {
		t.Errorf("Claim before the claim went stale = %v, want %v", got, ids(recs[1:2]))
	}
	h.Clock.Advance(time.Nanosecond)
	// Now it is, while the second claim (made a nanosecond ago) is not.
	got := claim(ctx, t, h.Store, "p", tok(2), 10)
	if !equalIDs(ids(got), []string{recs[0].ID, recs[2].ID}) {
		t.Fatalf("Claim after the stale-claim age = %v, want %v", ids(got), []string{recs[0].ID, recs[2].ID})
	}
	if !got[0].FirstAttemptAt.Equal(start) {
		t.Errorf("re-claimed record: FirstAttemptAt %v, want the first claim's %v", got[0].FirstAttemptAt, start)
	}
	if got[0].ReplayCount != 0 {
		t.Errorf("re-claimed record: ReplayCount %d, want 0 (a stale claim is no replay)", got[0].ReplayCount)
	}
	// The new owner completes what it took over; the old owner is fenced.
	complete(ctx, t, h.Store, recs[0].ID, tok(2))
	if err := h.Store.Complete(ctx, recs[2].ID, tok(1)); !errors.Is(err, fault.ErrStaleFencingToken) {
		t.Errorf("Complete by the crashed owner = %v, want STALE_FENCING_TOKEN", err)
	}
	wantDepth(ctx, t, h.Store, "p", 2)
}

func outboxFutureNextAttempt(ctx context.Context, t *testing.T, h OutboxHarness) {
	due := newRecord("p", 0)
	later := newRecord("p", 1)
	later.NextAttemptAt = h.Clock.Now().Add(time.Minute)
	recs := persist(ctx, t, h.Store, []ports.OutboxRecord{later, due})
	wantClaim(ctx, t, h.Store, "p", noTok, ids(recs[1:]))
	wantDepth(ctx, t, h.Store, "p", 2)
	complete(ctx, t, h.Store, recs[1].ID, noTok)
	h.Clock.Advance(time.Minute - time.Nanosecond)
	wantClaim(ctx, t, h.Store, "p", noTok, nil)
	h.Clock.Advance(time.Nanosecond)
	wantClaim(ctx, t, h.Store, "p", noTok, ids(recs[:1]))
}

func outboxReplaySchedules(ctx context.Context, t *testing.T, h OutboxHarness) {
	first := h.Clock.Now()
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 1))
	id := recs[0].ID
	wantClaim(ctx, t, h.Store, "p", noTok, []string{id})
	h.Clock.Advance(time.Second)
	next := h.Clock.Now().Add(time.Minute)
	replay(ctx, t, h.Store, id, noTok, errSendFailed, next)
	wantDepth(ctx, t, h.Store, "p", 1)
	wantClaim(ctx, t, h.Store, "p", noTok, nil)
	h.Clock.Advance(time.Minute - time.Nanosecond)
	wantClaim(ctx, t, h.Store, "p", noTok, nil)
	h.Clock.Advance(time.Nanosecond)
	got := claim(ctx, t, h.Store, "p", noTok, 5)
	if len(got) != 1 || got[0].ID != id {
		t.Fatalf("Claim after NextAttemptAt = %v, want [%s]", ids(got), id)
	}
	r := got[0]
	if r.ReplayCount != 1 || r.LastError != errSendFailed.Error() {
		t.Errorf("after one replay: ReplayCount %d, LastError %q; want 1, %q", r.ReplayCount, r.LastError, errSendFailed.Error())
	}
	if !r.NextAttemptAt.Equal(next) {
		t.Errorf("NextAttemptAt %v, want %v", r.NextAttemptAt, next)
	}
	if !r.FirstAttemptAt.Equal(first) {
		t.Errorf("FirstAttemptAt %v, want the first claim's %v", r.FirstAttemptAt, first)
	}
	// A second failure counts on.
	replay(ctx, t, h.Store, id, noTok, errors.New("second failure"), h.Clock.Now())
	got = claim(ctx, t, h.Store, "p", noTok, 5)
	if len(got) != 1 || got[0].ReplayCount != 2 || got[0].LastError != "second failure" {
		t.Errorf("after two replays: %+v, want ReplayCount 2 and LastError %q", got, "second failure")
	}
}

func outboxReplayKeepsOrder(ctx context.Context, t *testing.T, h OutboxHarness) {
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 3))
	if got := claimIDs(ctx, t, h.Store, "p", noTok, 1); !equalIDs(got, ids(recs[:1])) {
		t.Fatalf("Claim = %v, want %v", got, ids(recs[:1]))
	}
	// Due again at once: released, and still first in persist order.
	replay(ctx, t, h.Store, recs[0].ID, noTok, errSendFailed, h.Clock.Now())
	wantClaim(ctx, t, h.Store, "p", noTok, ids(recs))
}

func outboxReplayUnknown(ctx context.Context, t *testing.T, h OutboxHarness) {
	err := h.Store.Replay(ctx, "no-such-record", noTok, errSendFailed, h.Clock.Now())
	if !errors.Is(err, fault.ErrNotFound) {
		t.Errorf("Replay of an unknown record = %v, want NOT_FOUND", err)
	}
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 1))
	wantClaim(ctx, t, h.Store, "p", noTok, ids(recs))
	complete(ctx, t, h.Store, recs[0].ID, noTok)
	err = h.Store.Replay(ctx, recs[0].ID, noTok, errSendFailed, h.Clock.Now())
	if !errors.Is(err, fault.ErrNotFound) {
		t.Errorf("Replay of a completed record = %v, want NOT_FOUND", err)
	}
	wantDepth(ctx, t, h.Store, "p", 0)
}

func outboxCompleteRemoves(ctx context.Context, t *testing.T, h OutboxHarness) {
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 3))
	wantClaim(ctx, t, h.Store, "p", noTok, ids(recs))
	complete(ctx, t, h.Store, recs[1].ID, noTok)
	wantDepth(ctx, t, h.Store, "p", 2)
	complete(ctx, t, h.Store, recs[1].ID, noTok) // twice is fine
	complete(ctx, t, h.Store, "never-persisted", noTok)
	wantDepth(ctx, t, h.Store, "p", 2)
	// A completed record never comes back, even once its claim is stale.
	h.Clock.Advance(h.StaleClaimAge)
	wantClaim(ctx, t, h.Store, "p", noTok, []string{recs[0].ID, recs[2].ID})
	complete(ctx, t, h.Store, recs[0].ID, noTok)
	complete(ctx, t, h.Store, recs[2].ID, noTok)
	wantDepth(ctx, t, h.Store, "p", 0)
	h.Clock.Advance(h.StaleClaimAge)
	wantClaim(ctx, t, h.Store, "p", noTok, nil)
}

func outboxDepth(ctx context.Context, t *testing.T, h OutboxHarness) {
	wantDepth(ctx, t, h.Store, "p", 0)
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 4))
	scheduled := newRecord("p", 4)
	scheduled.NextAttemptAt = h.Clock.Now().Add(time.Hour)
	persist(ctx, t, h.Store, []ports.OutboxRecord{scheduled})
	wantDepth(ctx, t, h.Store, "p", 5)
	claim(ctx, t, h.Store, "p", noTok, 2)
	wantDepth(ctx, t, h.Store, "p", 5)
	replay(ctx, t, h.Store, recs[0].ID, noTok, errSendFailed, h.Clock.Now().Add(time.Hour))
	wantDepth(ctx, t, h.Store, "p", 5)
	complete(ctx, t, h.Store, recs[1].ID, noTok)
	complete(ctx, t, h.Store, recs[3].ID, noTok) // completing an unclaimed record is allowed
	wantDepth(ctx, t, h.Store, "p", 3)
}

// equalIDs reports whether two ID lists are equal, treating nil and empty
// alike.
func equalIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
