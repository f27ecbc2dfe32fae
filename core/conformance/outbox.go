package conformance

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// RunOutboxStore checks a ports.OutboxStore: records survive Persist and
// Claim intact, Persist is all or nothing, claims come in persist order
// per partition and respect the limit, claimed records stay claimed until
// their claim goes stale, Replay and Complete do what the contract says,
// fencing refuses stale tokens per partition, concurrent claimers never
// share a record, and, when the harness can reopen the store, everything
// not completed survives a reopen. newHarness is called once per subtest.
//
// Beyond the port's godoc the suite pins down these choices:
//   - Persist writes the IDs it fills, the CreatedAt it sets (the store
//     clock's now) and, for records without one, NextAttemptAt = CreatedAt
//     back into the caller's slice.
//   - A record whose ID is already stored, or appears twice in one batch,
//     makes Persist fail with DUPLICATE_RECORD; the batch stores nothing.
//   - A record is due when NextAttemptAt is not after now; a claim is
//     stale once the stale-claim age has fully passed (now >= claimed
//     at + age).
//   - Replay releases the claim: a record replayed with next <= now is
//     claimable at once, and due records are claimed in persist order
//     whether or not they were replayed.
//   - A token of the same version as the highest seen is accepted; a
//     higher one raises the mark, on Claim, Complete and Replay alike.
//   - ClaimCount grows by one for every record a Claim returns, a stale
//     claim taken over included, and survives a reopen; Replay leaves
//     it alone and Persist keeps the value it is given.
func RunOutboxStore(t *testing.T, newHarness func(t *testing.T) OutboxHarness) {
	t.Helper()
	cases := []struct {
		name string
		run  func(ctx context.Context, t *testing.T, h OutboxHarness)
	}{
		{"PersistThenClaimIntact", outboxIntact},
		{"PersistFillsIDsAndCreatedAt", outboxFillsIDs},
		{"PersistAllOrNothing", outboxAllOrNothing},
		{"PersistEmptyBatch", outboxEmptyBatch},
		{"StoreKeepsItsOwnCopies", outboxNoAliasing},
		{"ClaimLimit", outboxClaimLimit},
		{"ClaimFIFOAcrossPersists", outboxFIFO},
		{"PartitionsIsolated", outboxPartitions},
		{"ClaimedNotReclaimedUntilStale", outboxClaimedStays},
		{"StaleClaimTakeover", outboxStaleTakeover},
		{"FutureNextAttemptAt", outboxFutureNextAttempt},
		{"ReplaySchedulesNextAttempt", outboxReplaySchedules},
		{"ReplayDueNowKeepsOrder", outboxReplayKeepsOrder},
		{"ReplayUnknownRecord", outboxReplayUnknown},
		{"CompleteRemoves", outboxCompleteRemoves},
		{"DepthCountsClaimed", outboxDepth},
		{"FencingRejectsStaleTokens", outboxFencingStale},
		{"FencingAcceptsCurrentAndHigher", outboxFencingHigher},
		{"FencingPerPartition", outboxFencingPerPartition},
		{"FencingZeroToken", outboxFencingZero},
		{"ConcurrentClaimers", outboxConcurrentClaimers},
		{"ConcurrentPersists", outboxConcurrentPersists},
		{"SurvivesReopen", outboxReopen},
		{"FencingSurvivesReopen", outboxReopenFencing},
		{"ClaimCountCountsEveryClaim", outboxClaimCount},
		{"ClaimCountPersistedAsGiven", outboxClaimCountPersisted},
		{"ClaimCountSurvivesReopen", outboxClaimCountSurvivesReopen},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			if h.Store == nil || h.Clock == nil {
				t.Fatal("harness needs a Store and the Clock it was built with")
			}
			if h.StaleClaimAge <= 0 {
				h.StaleClaimAge = ports.DefaultStaleClaimAge
			}
			ctx := storeContext(t, h.Timeout, h.Close)
			c.run(ctx, t, h)
		})
	}
}

func outboxIntact(ctx context.Context, t *testing.T, h OutboxHarness) {
	now := h.Clock.Now()
	full := newRecord("p", 0)
	full.Envelope = newEnvelope(binaryPayload(), appHeaders(), reservedHeaders())
	full.Envelope.ExpiresAt = full.Envelope.CreatedAt.Add(90 * time.Second)
	full.NextAttemptAt = now
	// A bare record: empty payload, no headers, no expiry, no address.
	bare := ports.OutboxRecord{
		Partition: "p", RouteID: "route-bare", BindingID: "binding-bare",
		Envelope:      &messaging.Envelope{ID: messaging.NewID(), Subject: subject, CreatedAt: now.Add(-time.Second)},
		NextAttemptAt: now,
	}
	recs := persist(ctx, t, h.Store, []ports.OutboxRecord{full, bare})
	want := []recordView{recordViewOf(recs[0]), recordViewOf(recs[1])}
	for i := range want {
		want[i].CreatedAt = now
		want[i].FirstAttemptAt = now
	}
	got := claim(ctx, t, h.Store, "p", noTok, 10)
	gotViews := make([]recordView, len(got))
	for i, r := range got {
		gotViews[i] = recordViewOf(r)
	}
	if diff := cmp.Diff(want, gotViews, storeCmpOpts); diff != "" {
		t.Errorf("claimed records differ from the persisted ones (-want +got):\n%s", diff)
	}
	for _, r := range got {
		if r.Envelope != nil && r.Envelope.Subject != subject {
			t.Errorf("record %s: subject %q, want %q (address %q)", r.ID, r.Envelope.Subject, subject, r.Address)
		}
	}
}

func outboxFillsIDs(ctx context.Context, t *testing.T, h OutboxHarness) {
	recs := newRecords("p", 0, 3)
	recs[1].ID = "caller-chosen-id"
	recs[2].CreatedAt = h.Clock.Now().Add(-time.Hour)
	recs[2].NextAttemptAt = h.Clock.Now().Add(-time.Minute) // overdue
	persist(ctx, t, h.Store, recs)
	seen := map[string]bool{}
	for i, r := range recs {
		if r.ID == "" || seen[r.ID] {
			t.Errorf("record %d: ID %q after Persist, want a fresh unique ID", i, r.ID)
		}
		seen[r.ID] = true
		if !r.CreatedAt.Equal(h.Clock.Now()) {
			t.Errorf("record %d: CreatedAt %v after Persist, want the clock's now %v", i, r.CreatedAt, h.Clock.Now())
		}
		wantNext := h.Clock.Now()
		if i == 2 {
			wantNext = wantNext.Add(-time.Minute)
		}
		if !r.NextAttemptAt.Equal(wantNext) {
			t.Errorf("record %d: NextAttemptAt %v after Persist, want %v", i, r.NextAttemptAt, wantNext)
		}
	}
	if recs[1].ID != "caller-chosen-id" {
		t.Errorf("Persist replaced the caller's ID with %q", recs[1].ID)
	}
	wantClaim(ctx, t, h.Store, "p", noTok, ids(recs))
}

func outboxAllOrNothing(ctx context.Context, t *testing.T, h OutboxHarness) {
	stored := persist(ctx, t, h.Store, newRecords("p", 0, 1))
	cases := []struct {
		name  string
		batch func() []ports.OutboxRecord
	}{
		{"DuplicateWithinBatch", func() []ports.OutboxRecord {
			b := newRecords("p", 10, 13)
			b[0].ID, b[2].ID = "dup", "dup"
			return b
		}},
		{"DuplicateOfStoredRecord", func() []ports.OutboxRecord {
			b := newRecords("p", 20, 23)
			b[2].ID = stored[0].ID
			return b
		}},
		{"DuplicateInOtherPartition", func() []ports.OutboxRecord {
			b := append(newRecords("q", 30, 32), newRecord("p", 32))
			b[2].ID = stored[0].ID
			return b
		}},
	}
	for _, c := range cases {
		err := h.Store.Persist(ctx, c.batch())
		if !errors.Is(err, fault.ErrDuplicateRecord) {
			t.Errorf("%s: Persist = %v, want DUPLICATE_RECORD", c.name, err)
		}
	}
	wantDepth(ctx, t, h.Store, "p", 1)
	wantDepth(ctx, t, h.Store, "q", 0)
	wantClaim(ctx, t, h.Store, "p", noTok, ids(stored))
	wantClaim(ctx, t, h.Store, "q", noTok, nil)
}

func outboxEmptyBatch(ctx context.Context, t *testing.T, h OutboxHarness) {
	if err := h.Store.Persist(ctx, nil); err != nil {
		t.Errorf("Persist(nil) = %v, want nil", err)
	}
	if err := h.Store.Persist(ctx, []ports.OutboxRecord{}); err != nil {
		t.Errorf("Persist of an empty batch = %v, want nil", err)
	}
	wantDepth(ctx, t, h.Store, "p", 0)
}

func outboxNoAliasing(ctx context.Context, t *testing.T, h OutboxHarness) {
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 1))
	want := recordViewOf(recs[0])
	want.FirstAttemptAt = h.Clock.Now()
	// Change the caller's envelope after Persist ...
	recs[0].Envelope.Subject = "changed.by.caller"
	recs[0].Envelope.SetHeader("app-tenant", "mallory")
	got := claim(ctx, t, h.Store, "p", noTok, 1)
	if len(got) != 1 {
		t.Fatalf("claimed %d records, want 1", len(got))
	}
	if diff := cmp.Diff(want, recordViewOf(got[0]), storeCmpOpts); diff != "" {
		t.Errorf("the caller's changes after Persist reached the store (-want +got):\n%s", diff)
	}
	// ... and the claimed one after Claim.
	got[0].Envelope.Subject = "changed.by.drainer"
	got[0].Envelope.SetHeader("app-tenant", "eve")
	got[0].Envelope.SetPayload([]byte("replaced"))
	h.Clock.Advance(h.StaleClaimAge)
	again := claim(ctx, t, h.Store, "p", noTok, 1)
	if len(again) != 1 {
		t.Fatalf("re-claimed %d records after the claim went stale, want 1", len(again))
	}
	if diff := cmp.Diff(want, recordViewOf(again[0]), storeCmpOpts); diff != "" {
		t.Errorf("changes to a claimed record reached the store (-want +got):\n%s", diff)
	}
}

func outboxClaimLimit(ctx context.Context, t *testing.T, h OutboxHarness) {
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 5))
	all := ids(recs)
	if got := claimIDs(ctx, t, h.Store, "p", noTok, 2); !cmp.Equal(all[:2], got) {
		t.Errorf("Claim limit 2 = %v, want %v", got, all[:2])
	}
	if got := claimIDs(ctx, t, h.Store, "p", noTok, 1); !cmp.Equal(all[2:3], got) {
		t.Errorf("Claim limit 1 = %v, want %v", got, all[2:3])
	}
	if got := claimIDs(ctx, t, h.Store, "p", noTok, 10); !cmp.Equal(all[3:], got) {
		t.Errorf("Claim limit 10 = %v, want %v", got, all[3:])
	}
	if got := claimIDs(ctx, t, h.Store, "p", noTok, 10); len(got) != 0 {
		t.Errorf("Claim of a drained partition = %v, want none", got)
	}
}

func outboxFIFO(ctx context.Context, t *testing.T, h OutboxHarness) {
	var want []string
	for batch := range 4 {
		// Interleave another partition and move no time: the order must
		// come from the persist sequence, not from timestamps.
		persist(ctx, t, h.Store, newRecords("other", batch*3, batch*3+3))
		want = append(want, ids(persist(ctx, t, h.Store, newRecords("p", batch*5, batch*5+5)))...)
	}
	var got []string
	for len(got) < len(want) {
		next := claimIDs(ctx, t, h.Store, "p", noTok, 3)
		if len(next) == 0 {
			break
		}
		got = append(got, next...)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claim order differs from persist order (-want +got):\n%s", diff)
	}
}

func outboxPartitions(ctx context.Context, t *testing.T, h OutboxHarness) {
	a := persist(ctx, t, h.Store, newRecords("a", 0, 3))
	b := persist(ctx, t, h.Store, newRecords("b", 0, 2))
	wantDepth(ctx, t, h.Store, "a", 3)
	wantDepth(ctx, t, h.Store, "b", 2)
	wantDepth(ctx, t, h.Store, "c", 0)
	wantClaim(ctx, t, h.Store, "c", noTok, nil)
	wantClaim(ctx, t, h.Store, "b", noTok, ids(b))
	complete(ctx, t, h.Store, b[0].ID, noTok)
	wantDepth(ctx, t, h.Store, "a", 3)
	wantClaim(ctx, t, h.Store, "a", noTok, ids(a))
}

func outboxClaimedStays(ctx context.Context, t *testing.T, h OutboxHarness) {
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 3))
	wantClaim(ctx, t, h.Store, "p", noTok, ids(recs))
	wantClaim(ctx, t, h.Store, "p", noTok, nil)
	h.Clock.Advance(h.StaleClaimAge - time.Nanosecond)
	wantClaim(ctx, t, h.Store, "p", tok(2), nil)
	later := persist(ctx, t, h.Store, newRecords("p", 3, 4))
	wantClaim(ctx, t, h.Store, "p", tok(2), ids(later))
	wantDepth(ctx, t, h.Store, "p", 4)
}
