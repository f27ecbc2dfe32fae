package conformance

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/ports"
)

func dlqPaginationStability(ctx context.Context, t *testing.T, h DLQHarness) {
	e := writeSeries(ctx, t, h.Store, 0, 10)
	all, _ := listAll(ctx, t, h.Store, ports.DLQFilter{}, 0)
	if len(all) != 10 {
		t.Fatalf("listed %d entries, want 10", len(all))
	}
	entryID := func(i int) string { return all[i].ID }
	del := func(i int) {
		t.Helper()
		if err := h.Store.Delete(ctx, entryID(i)); err != nil {
			t.Fatalf("Delete of entry %d: %v", i, err)
		}
	}

	var got []ports.DLQEntry
	p := list(ctx, t, h.Store, ports.DLQFilter{}, "", 3) // 0 1 2
	got = append(got, p.Entries...)
	del(2) // the entry the cursor stands on
	del(1) // one already listed
	del(5) // one not listed yet
	e = append(e, writeSeries(ctx, t, h.Store, 10, 2)...)
	p = list(ctx, t, h.Store, ports.DLQFilter{}, p.NextCursor, 3) // 3 4 6
	got = append(got, p.Entries...)
	del(6)
	del(7)
	e = append(e, writeSeries(ctx, t, h.Store, 12, 1)...)
	for p.NextCursor != "" {
		p = list(ctx, t, h.Store, ports.DLQFilter{}, p.NextCursor, 3) // 8 9 10, 11 12
		got = append(got, p.Entries...)
	}
	var want []string
	for _, i := range []int{0, 1, 2, 3, 4, 6, 8, 9, 10, 11, 12} {
		want = append(want, e[i].Envelope.ID)
	}
	if diff := cmp.Diff(want, envelopeIDs(got)); diff != "" {
		t.Errorf("paging while writing and deleting (-want +got):\n%s", diff)
	}
}

func dlqReopen(ctx context.Context, t *testing.T, h DLQHarness) {
	if h.Reopen == nil {
		t.Skip("the harness cannot reopen its store")
	}
	written := writeSeries(ctx, t, h.Store, 0, 4)
	before, _ := listAll(ctx, t, h.Store, ports.DLQFilter{}, 0)
	if len(before) != 4 {
		t.Fatalf("listed %d entries, want 4", len(before))
	}
	if err := h.Store.Delete(ctx, before[1].ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	h.Store = h.Reopen(t)
	if h.Store == nil {
		t.Fatal("Reopen returned no store")
	}
	kept := []int{0, 2, 3}
	for _, i := range kept {
		want := written[i]
		want.ID = before[i].ID
		got, err := h.Store.Get(ctx, want.ID)
		if err != nil {
			t.Fatalf("Get(%q) after reopen: %v", want.ID, err)
		}
		if diff := cmp.Diff(dlqViewOf(want), dlqViewOf(got), storeCmpOpts); diff != "" {
			t.Errorf("entry %d after reopen (-want +got):\n%s", i, diff)
		}
	}
	if n := count(ctx, t, h.Store, ports.DLQFilter{}); n != len(kept) {
		t.Errorf("Count after reopen = %d, want %d", n, len(kept))
	}
	// New entries go after the old ones and get IDs of their own.
	more := writeSeries(ctx, t, h.Store, 4, 1)
	after, _ := listAll(ctx, t, h.Store, ports.DLQFilter{}, 2)
	want := []string{written[0].Envelope.ID, written[2].Envelope.ID, written[3].Envelope.ID, more[0].Envelope.ID}
	if diff := cmp.Diff(want, envelopeIDs(after)); diff != "" {
		t.Errorf("listing after reopen (-want +got):\n%s", diff)
	}
	if len(after) == len(want) {
		for i := range 3 {
			if after[3].ID == after[i].ID || after[3].ID == before[1].ID {
				t.Errorf("an entry written after reopen reuses ID %q", after[3].ID)
			}
		}
	}
}
