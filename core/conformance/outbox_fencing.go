package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// wantStale checks that err is STALE_FENCING_TOKEN.
func wantStale(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, fault.ErrStaleFencingToken) {
		t.Errorf("%s = %v, want STALE_FENCING_TOKEN", what, err)
	}
}

func outboxFencingStale(ctx context.Context, t *testing.T, h OutboxHarness) {
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 4))
	claimed := claim(ctx, t, h.Store, "p", tok(5), 2)
	if !equalIDs(ids(claimed), ids(recs[:2])) {
		t.Fatalf("Claim with version 5 = %v, want %v", ids(claimed), ids(recs[:2]))
	}
	_, err := h.Store.Claim(ctx, "p", tok(4), 10)
	wantStale(t, "Claim with version 4", err)
	wantStale(t, "Complete with version 4", h.Store.Complete(ctx, recs[0].ID, tok(4)))
	wantStale(t, "Replay with version 4", h.Store.Replay(ctx, recs[1].ID, tok(4), errSendFailed, h.Clock.Now()))
	_, err = h.Store.Claim(ctx, "p", noTok, 10)
	wantStale(t, "Claim with the zero token", err)
	// Nothing changed: the stale Claim took nothing, the stale Complete
	// removed nothing and the stale Replay neither released nor counted.
	wantDepth(ctx, t, h.Store, "p", 4)
	wantClaim(ctx, t, h.Store, "p", tok(5), ids(recs[2:]))
	h.Clock.Advance(h.StaleClaimAge)
	got := claim(ctx, t, h.Store, "p", tok(5), 10)
	if !equalIDs(ids(got), ids(recs)) {
		t.Fatalf("Claim after the claims went stale = %v, want %v", ids(got), ids(recs))
	}
	if got[1].ReplayCount != 0 || got[1].LastError != "" {
		t.Errorf("a refused Replay changed the record: ReplayCount %d, LastError %q", got[1].ReplayCount, got[1].LastError)
	}
}

func outboxFencingHigher(ctx context.Context, t *testing.T, h OutboxHarness) {
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 4))
	claim(ctx, t, h.Store, "p", tok(5), 2)
	complete(ctx, t, h.Store, recs[0].ID, tok(5))
	replay(ctx, t, h.Store, recs[1].ID, tok(5), errSendFailed, h.Clock.Now())
	// Version 6 is accepted on every write and becomes the mark.
	replay(ctx, t, h.Store, recs[1].ID, tok(6), errSendFailed, h.Clock.Now())
	wantClaim(ctx, t, h.Store, "p", tok(6), ids(recs[1:]))
	_, err := h.Store.Claim(ctx, "p", tok(5), 10)
	wantStale(t, "Claim with version 5 after version 6", err)
	complete(ctx, t, h.Store, recs[1].ID, tok(7))
	wantStale(t, "Complete with version 6 after version 7", h.Store.Complete(ctx, recs[2].ID, tok(6)))
	complete(ctx, t, h.Store, recs[2].ID, tok(7))
	wantDepth(ctx, t, h.Store, "p", 1)
}

func outboxFencingPerPartition(ctx context.Context, t *testing.T, h OutboxHarness) {
	a := persist(ctx, t, h.Store, newRecords("a", 0, 2))
	b := persist(ctx, t, h.Store, newRecords("b", 0, 2))
	claim(ctx, t, h.Store, "a", tok(9), 1)
	// Partition b never saw version 9.
	wantClaim(ctx, t, h.Store, "b", tok(1), ids(b))
	complete(ctx, t, h.Store, b[0].ID, tok(1))
	replay(ctx, t, h.Store, b[1].ID, tok(1), errSendFailed, h.Clock.Now())
	// The token of a record's own partition decides, whatever partition
	// was used last.
	wantStale(t, "Complete of a record of partition a with version 1", h.Store.Complete(ctx, a[0].ID, tok(1)))
	complete(ctx, t, h.Store, a[0].ID, tok(9))
	wantDepth(ctx, t, h.Store, "a", 1)
	wantDepth(ctx, t, h.Store, "b", 1)
}

func outboxFencingZero(ctx context.Context, t *testing.T, h OutboxHarness) {
	recs := persist(ctx, t, h.Store, newRecords("p", 0, 3))
	wantClaim(ctx, t, h.Store, "p", noTok, ids(recs))
	replay(ctx, t, h.Store, recs[0].ID, noTok, errSendFailed, h.Clock.Now())
	complete(ctx, t, h.Store, recs[1].ID, noTok)
	// A lease appears: the zero token is stale from then on.
	wantClaim(ctx, t, h.Store, "p", tok(1), ids(recs[:1]))
	_, err := h.Store.Claim(ctx, "p", noTok, 10)
	wantStale(t, "Claim with the zero token after version 1", err)
}

func outboxConcurrentClaimers(ctx context.Context, t *testing.T, h OutboxHarness) {
	const total, claimers = 1000, 8
	var want []string
	for from := 0; from < total; from += 100 {
		want = append(want, ids(persist(ctx, t, h.Store, newRecords("p", from, from+100)))...)
	}
	pos := make(map[string]int, total)
	for i, id := range want {
		pos[id] = i
	}
	got := make([][]string, claimers)
	errs := make([]error, claimers)
	var wg sync.WaitGroup
	for c := range claimers {
		wg.Go(func() {
			for ctx.Err() == nil {
				recs, err := h.Store.Claim(ctx, "p", noTok, 7)
				if err != nil {
					errs[c] = err
					return
				}
				if len(recs) == 0 {
					return
				}
				for _, r := range recs {
					got[c] = append(got[c], r.ID)
					if err := h.Store.Complete(ctx, r.ID, noTok); err != nil {
						errs[c] = err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	seen := make(map[string]int, total)
	var all []string
	for c := range claimers {
		if errs[c] != nil {
			t.Errorf("claimer %d: %v", c, errs[c])
		}
		// Each claimer sees its own claims in persist order.
		if !slices.IsSortedFunc(got[c], func(x, y string) int { return pos[x] - pos[y] }) {
			t.Errorf("claimer %d got records out of persist order", c)
		}
		for i, id := range got[c] {
			if prev, dup := seen[id]; dup {
				t.Errorf("record %s claimed by claimer %d and again by claimer %d (its #%d)", id, prev, c, i)
			}
			seen[id] = c
		}
		all = append(all, got[c]...)
	}
	slices.Sort(all)
	sorted := slices.Sorted(slices.Values(want))
	if diff := cmp.Diff(sorted, slices.Compact(all)); diff != "" {
		t.Errorf("the claimers together did not get every record (-want +got):\n%s", diff)
	}
	wantDepth(ctx, t, h.Store, "p", 0)
}

func outboxConcurrentPersists(ctx context.Context, t *testing.T, h OutboxHarness) {
	const producers, batches, size = 8, 10, 5
	sent := make([][]string, producers)
	errs := make([]error, producers)
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for b := range batches {
				recs := newRecords(fmt.Sprintf("prod%d", p), b*size, b*size+size)
				for i := range recs {
					recs[i].Partition = "p"
				}
				if err := h.Store.Persist(ctx, recs); err != nil {
					errs[p] = err
					return
				}
				sent[p] = append(sent[p], ids(recs)...)
			}
		})
	}
	wg.Wait()
	for p, err := range errs {
		if err != nil {
			t.Fatalf("producer %d: %v", p, err)
		}
	}
	wantDepth(ctx, t, h.Store, "p", producers*batches*size)
	got := claimIDs(ctx, t, h.Store, "p", noTok, producers*batches*size)
	// Records of one producer come out in the order it persisted them.
	for p := range producers {
		mine := slices.DeleteFunc(slices.Clone(got), func(id string) bool { return !slices.Contains(sent[p], id) })
		if diff := cmp.Diff(sent[p], mine); diff != "" {
			t.Errorf("producer %d: claim order differs from persist order (-want +got):\n%s", p, diff)
		}
	}
}
