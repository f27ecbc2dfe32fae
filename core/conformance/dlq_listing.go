package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func dlqListOrder(ctx context.Context, t *testing.T, h DLQHarness) {
	// Failure times run backwards: the order must be the write order.
	var want []string
	for i := range 7 {
		e := newDLQEntry(i, fixtureRoute, ports.DLQPermanent, dlqBase.Add(-time.Duration(i)*time.Minute))
		write(ctx, t, h.Store, e)
		want = append(want, e.Envelope.ID)
	}
	for _, c := range []struct{ limit, pages int }{{3, 3}, {7, 1}, {1, 7}, {100, 1}} {
		got, pages := listAll(ctx, t, h.Store, ports.DLQFilter{}, c.limit)
		if diff := cmp.Diff(want, envelopeIDs(got)); diff != "" {
			t.Errorf("limit %d: listing differs from write order (-want +got):\n%s", c.limit, diff)
		}
		if pages != c.pages {
			t.Errorf("limit %d: %d pages, want %d (no cursor after the last match)", c.limit, pages, c.pages)
		}
	}
}

func dlqListEmpty(ctx context.Context, t *testing.T, h DLQHarness) {
	p := list(ctx, t, h.Store, ports.DLQFilter{}, "", 10)
	if len(p.Entries) != 0 || p.NextCursor != "" {
		t.Errorf("List of an empty store = %d entries, cursor %q; want none and no cursor", len(p.Entries), p.NextCursor)
	}
	if n := count(ctx, t, h.Store, ports.DLQFilter{}); n != 0 {
		t.Errorf("Count of an empty store = %d", n)
	}
	if n, err := h.Store.Purge(ctx, ports.DLQFilter{}); err != nil || n != 0 {
		t.Errorf("Purge of an empty store = %d, %v; want 0, nil", n, err)
	}
}

func dlqDefaultLimitCase(ctx context.Context, t *testing.T, h DLQHarness) {
	written := writeSeries(ctx, t, h.Store, 0, dlqDefaultLimit+50)
	first := list(ctx, t, h.Store, ports.DLQFilter{}, "", 0)
	if len(first.Entries) != dlqDefaultLimit || first.NextCursor == "" {
		t.Fatalf("List with limit 0 = %d entries, cursor %q; want %d and a cursor", len(first.Entries), first.NextCursor, dlqDefaultLimit)
	}
	second := list(ctx, t, h.Store, ports.DLQFilter{}, first.NextCursor, -1)
	if len(second.Entries) != 50 || second.NextCursor != "" {
		t.Errorf("List with limit -1 = %d entries, cursor %q; want 50 and none", len(second.Entries), second.NextCursor)
	}
	got := envelopeIDs(append(first.Entries, second.Entries...))
	if diff := cmp.Diff(envelopeIDs(written), got); diff != "" {
		t.Errorf("listing (-want +got):\n%s", diff)
	}
}

func dlqFilteredPages(ctx context.Context, t *testing.T, h DLQHarness) {
	written := writeSeries(ctx, t, h.Store, 0, 20)
	f := ports.DLQFilter{RouteID: "route-1", Category: ports.DLQMaxRetries}
	var want []string
	for _, e := range written {
		if e.RouteID == f.RouteID && e.Category == f.Category {
			want = append(want, e.Envelope.ID)
		}
	}
	got, _ := listAll(ctx, t, h.Store, f, 2)
	if diff := cmp.Diff(want, envelopeIDs(got)); diff != "" {
		t.Errorf("filtered listing (-want +got):\n%s", diff)
	}
}

// dlqFilterCases writes six entries and returns the filters to try, each
// with the indexes of the entries it matches.
func dlqFilterCases() ([]ports.DLQEntry, []dlqFilterCase) {
	at := func(m int) time.Time { return dlqBase.Add(time.Duration(m) * time.Minute) }
	entries := []ports.DLQEntry{
		newDLQEntry(0, "route-a", ports.DLQPermanent, at(0)),
		newDLQEntry(1, "route-b", ports.DLQMaxRetries, at(1)),
		newDLQEntry(2, "route-a", ports.DLQExpired, at(2)),
		newDLQEntry(3, "route-a", ports.DLQMaxRetries, at(3)),
		newDLQEntry(4, "route-b", ports.DLQFiltered, at(4)),
		newDLQEntry(5, "route-c", ports.DLQPermanent, at(5)),
	}
	cases := []dlqFilterCase{
		{"Everything", ports.DLQFilter{}, []int{0, 1, 2, 3, 4, 5}},
		{"Route", ports.DLQFilter{RouteID: "route-a"}, []int{0, 2, 3}},
		{"Category", ports.DLQFilter{Category: ports.DLQMaxRetries}, []int{1, 3}},
		{"RouteAndCategory", ports.DLQFilter{RouteID: "route-a", Category: ports.DLQMaxRetries}, []int{3}},
		{"FromIsInclusive", ports.DLQFilter{From: at(2)}, []int{2, 3, 4, 5}},
		{"ToIsExclusive", ports.DLQFilter{To: at(2)}, []int{0, 1}},
		{"TimeRange", ports.DLQFilter{From: at(1), To: at(4)}, []int{1, 2, 3}},
		{"TimeRangeAndRoute", ports.DLQFilter{RouteID: "route-b", From: at(1), To: at(4)}, []int{1}},
		{"EmptyRange", ports.DLQFilter{From: at(3), To: at(3)}, nil},
		{"UnknownRoute", ports.DLQFilter{RouteID: "route-z"}, nil},
		{"OtherLocation", ports.DLQFilter{From: at(4).In(time.FixedZone("UTC+2", 2*3600))}, []int{4, 5}},
	}
	return entries, cases
}

type dlqFilterCase struct {
	name  string
	f     ports.DLQFilter
	match []int
}

func dlqFilters(ctx context.Context, t *testing.T, h DLQHarness) {
	entries, cases := dlqFilterCases()
	for _, e := range entries {
		write(ctx, t, h.Store, e)
	}
	for _, c := range cases {
		want := make([]string, 0, len(c.match))
		for _, i := range c.match {
			want = append(want, entries[i].Envelope.ID)
		}
		got, _ := listAll(ctx, t, h.Store, c.f, 2)
		if diff := cmp.Diff(want, envelopeIDs(got), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: List (-want +got):\n%s", c.name, diff)
		}
		if n := count(ctx, t, h.Store, c.f); n != len(want) {
			t.Errorf("%s: Count = %d, want %d", c.name, n, len(want))
		}
	}
	// Purge with each filter, starting each time from the same entries.
	for _, c := range cases {
		if _, err := h.Store.Purge(ctx, ports.DLQFilter{}); err != nil {
			t.Fatalf("Purge of everything: %v", err)
		}
		for _, e := range entries {
			write(ctx, t, h.Store, e)
		}
		n, err := h.Store.Purge(ctx, c.f)
		if err != nil || n != len(c.match) {
			t.Errorf("%s: Purge = %d, %v; want %d, nil", c.name, n, err, len(c.match))
		}
		var want []string
		for i, e := range entries {
			if !slices.Contains(c.match, i) {
				want = append(want, e.Envelope.ID)
			}
		}
		rest, _ := listAll(ctx, t, h.Store, ports.DLQFilter{}, 0)
		if diff := cmp.Diff(want, envelopeIDs(rest), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: entries left after Purge (-want +got):\n%s", c.name, diff)
		}
	}
}

func dlqPurgeAll(ctx context.Context, t *testing.T, h DLQHarness) {
	writeSeries(ctx, t, h.Store, 0, 5)
	purged, _ := listAll(ctx, t, h.Store, ports.DLQFilter{}, 0)
	n, err := h.Store.Purge(ctx, ports.DLQFilter{})
	if err != nil || n != 5 {
		t.Errorf("Purge of everything = %d, %v; want 5, nil", n, err)
	}
	if n := count(ctx, t, h.Store, ports.DLQFilter{}); n != 0 {
		t.Errorf("Count after Purge = %d, want 0", n)
	}
	for _, e := range purged {
		if _, err := h.Store.Get(ctx, e.ID); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("Get of purged entry %q = %v, want NOT_FOUND", e.ID, err)
		}
	}
	more := writeSeries(ctx, t, h.Store, 5, 2)
	got, _ := listAll(ctx, t, h.Store, ports.DLQFilter{}, 0)
	if diff := cmp.Diff(envelopeIDs(more), envelopeIDs(got)); diff != "" {
		t.Errorf("listing after Purge and new writes (-want +got):\n%s", diff)
	}
}

func dlqConcurrentWrites(ctx context.Context, t *testing.T, h DLQHarness) {
	const writers, each = 8, 25
	written := make([][]string, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				e := newDLQEntry(w*each+i, fmt.Sprintf("route-%d", w), ports.DLQPermanent, dlqBase)
				if errs[w] = h.Store.Write(ctx, e); errs[w] != nil {
					return
				}
				written[w] = append(written[w], e.Envelope.ID)
			}
		})
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", w, err)
		}
	}
	all, _ := listAll(ctx, t, h.Store, ports.DLQFilter{}, 30)
	if len(all) != writers*each || count(ctx, t, h.Store, ports.DLQFilter{}) != writers*each {
		t.Fatalf("listed %d entries, want %d", len(all), writers*each)
	}
	if ids := entryIDs(all); len(slices.Compact(slices.Sorted(slices.Values(ids)))) != len(ids) {
		t.Error("two entries share an ID")
	}
	for w := range writers {
		got, _ := listAll(ctx, t, h.Store, ports.DLQFilter{RouteID: fmt.Sprintf("route-%d", w)}, 7)
		if diff := cmp.Diff(written[w], envelopeIDs(got)); diff != "" {
			t.Errorf("writer %d: listing differs from its write order (-want +got):\n%s", w, diff)
		}
	}
}
