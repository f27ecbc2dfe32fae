package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// dlqDefaultLimit is the page size the DLQ contract gives a limit of 0 or
// less.
const dlqDefaultLimit = 100

// dlqBase is the failure time the DLQ fixtures start from. DLQ stores take
// their times from the entries, so the suite needs no clock.
var dlqBase = time.Date(2030, time.March, 4, 5, 6, 7, 890123456, time.UTC)

// RunDLQStore checks a ports.DLQStore: entries survive Write, Get and List
// intact, Write fills the ID, Get and Delete report NOT_FOUND, List pages
// oldest first with a stable cursor while entries are written and deleted,
// the filters of List, Count and Purge agree, and, when the harness can
// reopen the store, entries survive a reopen. newHarness is called once
// per subtest.
//
// Beyond the port's godoc the suite pins down these choices:
//   - Write with an ID that is already stored fails with DUPLICATE_RECORD
//     and changes nothing.
//   - NextCursor is empty as soon as no matching entry follows the page,
//     so a page that ends exactly at the last match carries none.
//   - Entries written while an operator pages through come after the
//     cursor (write order), so the rest of the listing includes them.
func RunDLQStore(t *testing.T, newHarness func(t *testing.T) DLQHarness) {
	t.Helper()
	cases := []struct {
		name string
		run  func(ctx context.Context, t *testing.T, h DLQHarness)
	}{
		{"WriteThenGetIntact", dlqIntact},
		{"WriteDuplicateID", dlqDuplicate},
		{"NotFound", dlqNotFound},
		{"DeleteRemoves", dlqDelete},
		{"StoreKeepsItsOwnCopies", dlqNoAliasing},
		{"ListOldestFirst", dlqListOrder},
		{"ListEmpty", dlqListEmpty},
		{"ListDefaultLimit", dlqDefaultLimitCase},
		{"ListFilteredPages", dlqFilteredPages},
		{"Filters", dlqFilters},
		{"PurgeAll", dlqPurgeAll},
		{"PaginationStability", dlqPaginationStability},
		{"ConcurrentWrites", dlqConcurrentWrites},
		{"SurvivesReopen", dlqReopen},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			if h.Store == nil {
				t.Fatal("harness needs a Store")
			}
			ctx := storeContext(t, h.Timeout, h.Close)
			c.run(ctx, t, h)
		})
	}
}

// write stores e or fails the test.
func write(ctx context.Context, t *testing.T, s ports.DLQStore, e ports.DLQEntry) {
	t.Helper()
	if err := s.Write(ctx, e); err != nil {
		t.Fatalf("Write: %v", err)
	}
}

// writeSeries writes n entries failed a minute apart, alternating routes
// and categories, and returns them in write order.
func writeSeries(ctx context.Context, t *testing.T, s ports.DLQStore, from, n int) []ports.DLQEntry {
	t.Helper()
	cats := []ports.DLQCategory{ports.DLQPermanent, ports.DLQMaxRetries, ports.DLQExpired}
	out := make([]ports.DLQEntry, 0, n)
	for i := from; i < from+n; i++ {
		e := newDLQEntry(i, fmt.Sprintf("route-%d", i%2), cats[i%len(cats)], dlqBase.Add(time.Duration(i)*time.Minute))
		write(ctx, t, s, e)
		out = append(out, e)
	}
	return out
}

// list fetches one page or fails the test.
func list(ctx context.Context, t *testing.T, s ports.DLQStore, f ports.DLQFilter, cursor string, limit int) ports.DLQPage {
	t.Helper()
	p, err := s.List(ctx, f, cursor, limit)
	if err != nil {
		t.Fatalf("List(cursor %q, limit %d): %v", cursor, limit, err)
	}
	return p
}

// listAll pages through the whole listing and returns every entry and the
// number of pages.
func listAll(ctx context.Context, t *testing.T, s ports.DLQStore, f ports.DLQFilter, limit int) ([]ports.DLQEntry, int) {
	t.Helper()
	var all []ports.DLQEntry
	cursor, pages := "", 0
	for {
		p := list(ctx, t, s, f, cursor, limit)
		pages++
		if limit > 0 && len(p.Entries) > limit {
			t.Fatalf("page of %d entries with limit %d", len(p.Entries), limit)
		}
		all = append(all, p.Entries...)
		if p.NextCursor == "" {
			return all, pages
		}
		if len(p.Entries) == 0 {
			t.Fatalf("empty page with a next cursor %q", p.NextCursor)
		}
		if pages > 10000 {
			t.Fatal("listing does not end")
		}
		cursor = p.NextCursor
	}
}

// count counts or fails the test.
func count(ctx context.Context, t *testing.T, s ports.DLQStore, f ports.DLQFilter) int {
	t.Helper()
	n, err := s.Count(ctx, f)
	if err != nil {
		t.Fatalf("Count(%+v): %v", f, err)
	}
	return n
}

// entryIDs returns the entry IDs, in order.
func entryIDs(entries []ports.DLQEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.ID
	}
	return out
}

func dlqIntact(ctx context.Context, t *testing.T, h DLQHarness) {
	full := newDLQEntry(0, fixtureRoute, ports.DLQRetryUnsupported, dlqBase)
	full.Envelope = newEnvelope(binaryPayload(), appHeaders(), reservedHeaders())
	full.Envelope.ExpiresAt = full.Envelope.CreatedAt.Add(time.Hour)
	chosen := newDLQEntry(1, fixtureRoute, ports.DLQFiltered, dlqBase.Add(time.Second))
	chosen.ID, chosen.Address = "caller-chosen-id", ""
	write(ctx, t, h.Store, full)
	write(ctx, t, h.Store, chosen)
	page := list(ctx, t, h.Store, ports.DLQFilter{}, "", 10)
	if len(page.Entries) != 2 {
		t.Fatalf("List returned %d entries, want 2", len(page.Entries))
	}
	if page.Entries[0].ID == "" || page.Entries[0].ID == chosen.ID {
		t.Errorf("Write filled ID %q, want a fresh one", page.Entries[0].ID)
	}
	full.ID = page.Entries[0].ID
	for _, want := range []ports.DLQEntry{full, chosen} {
		got, err := h.Store.Get(ctx, want.ID)
		if err != nil {
			t.Fatalf("Get(%q): %v", want.ID, err)
		}
		if diff := cmp.Diff(dlqViewOf(want), dlqViewOf(got), storeCmpOpts); diff != "" {
			t.Errorf("Get(%q) (-written +got):\n%s", want.ID, diff)
		}
	}
	want := []dlqView{dlqViewOf(full), dlqViewOf(chosen)}
	got := []dlqView{dlqViewOf(page.Entries[0]), dlqViewOf(page.Entries[1])}
	if diff := cmp.Diff(want, got, storeCmpOpts); diff != "" {
		t.Errorf("List (-written +got):\n%s", diff)
	}
}

func dlqDuplicate(ctx context.Context, t *testing.T, h DLQHarness) {
	e := newDLQEntry(0, fixtureRoute, ports.DLQPermanent, dlqBase)
	e.ID = "entry-1"
	write(ctx, t, h.Store, e)
	other := newDLQEntry(1, "route-other", ports.DLQExpired, dlqBase)
	other.ID = e.ID
	if err := h.Store.Write(ctx, other); !errors.Is(err, fault.ErrDuplicateRecord) {
		t.Errorf("Write with a stored ID = %v, want DUPLICATE_RECORD", err)
	}
	got, err := h.Store.Get(ctx, e.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(dlqViewOf(e), dlqViewOf(got), storeCmpOpts); diff != "" {
		t.Errorf("the refused Write changed the entry (-want +got):\n%s", diff)
	}
	if n := count(ctx, t, h.Store, ports.DLQFilter{}); n != 1 {
		t.Errorf("Count = %d, want 1", n)
	}
}

func dlqNotFound(ctx context.Context, t *testing.T, h DLQHarness) {
	writeSeries(ctx, t, h.Store, 0, 2)
	if _, err := h.Store.Get(ctx, "no-such-entry"); !errors.Is(err, fault.ErrNotFound) {
		t.Errorf("Get of an unknown id = %v, want NOT_FOUND", err)
	}
	if err := h.Store.Delete(ctx, "no-such-entry"); !errors.Is(err, fault.ErrNotFound) {
		t.Errorf("Delete of an unknown id = %v, want NOT_FOUND", err)
	}
	if n := count(ctx, t, h.Store, ports.DLQFilter{}); n != 2 {
		t.Errorf("Count = %d, want 2", n)
	}
}

func dlqDelete(ctx context.Context, t *testing.T, h DLQHarness) {
	written := writeSeries(ctx, t, h.Store, 0, 3)
	all, _ := listAll(ctx, t, h.Store, ports.DLQFilter{}, 0)
	if len(all) != 3 {
		t.Fatalf("listed %d entries, want 3", len(all))
	}
	if err := h.Store.Delete(ctx, all[1].ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := h.Store.Get(ctx, all[1].ID); !errors.Is(err, fault.ErrNotFound) {
		t.Errorf("Get of a deleted entry = %v, want NOT_FOUND", err)
	}
	if err := h.Store.Delete(ctx, all[1].ID); !errors.Is(err, fault.ErrNotFound) {
		t.Errorf("second Delete = %v, want NOT_FOUND", err)
	}
	if n := count(ctx, t, h.Store, ports.DLQFilter{}); n != 2 {
		t.Errorf("Count after Delete = %d, want 2", n)
	}
	rest, _ := listAll(ctx, t, h.Store, ports.DLQFilter{}, 0)
	want := []string{written[0].Envelope.ID, written[2].Envelope.ID}
	if diff := cmp.Diff(want, envelopeIDs(rest)); diff != "" {
		t.Errorf("listing after Delete (-want +got):\n%s", diff)
	}
}

func dlqNoAliasing(ctx context.Context, t *testing.T, h DLQHarness) {
	e := newDLQEntry(0, fixtureRoute, ports.DLQPermanent, dlqBase)
	e.ID = "entry-1"
	want := dlqViewOf(e)
	write(ctx, t, h.Store, e)
	e.Envelope.Subject = "changed.by.caller"
	e.Envelope.SetHeader("app-tenant", "mallory")
	got, err := h.Store.Get(ctx, e.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	got.Envelope.Subject = "changed.by.reader"
	got.Envelope.SetHeader("app-tenant", "eve")
	got.Envelope.SetPayload([]byte("replaced"))
	page := list(ctx, t, h.Store, ports.DLQFilter{}, "", 1)
	page.Entries[0].Envelope.SetHeader("app-note", "listed")
	again, err := h.Store.Get(ctx, e.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(want, dlqViewOf(again), storeCmpOpts); diff != "" {
		t.Errorf("changes outside the store reached it (-want +got):\n%s", diff)
	}
}
