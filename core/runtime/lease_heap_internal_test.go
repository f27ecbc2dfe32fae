package runtime

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLeaseHeapOrdersByDueTime drives the lease heap with random pushes,
// removals from anywhere and pops of the minimum, and checks after every
// step that each lease knows its index, that the heap property holds,
// and that pops come out in due order, as the lease table relies on.
func TestLeaseHeapOrdersByDueTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q leaseHeap
	in := map[*heldLease]bool{}
	check := func(step int) {
		t.Helper()
		if len(q) != len(in) {
			t.Fatalf("step %d: heap holds %d leases, want %d", step, len(q), len(in))
		}
		for i, h := range q {
			if h.idx != i || !in[h] {
				t.Fatalf("step %d: lease at %d has index %d (held %v)", step, i, h.idx, in[h])
			}
			if i > 0 && q[(i-1)/2].due > h.due {
				t.Fatalf("step %d: lease at %d is due before its parent", step, i)
			}
		}
	}
	for step := range 5000 {
		switch op := rng.IntN(10); {
		case op < 5 || len(q) == 0:
			h := &heldLease{due: rng.Int64N(1000)}
			q.push(h)
			in[h] = true
		case op < 8:
			h := q[rng.IntN(len(q))]
			q.remove(h.idx)
			if h.idx != -1 {
				t.Fatalf("step %d: removed lease keeps index %d", step, h.idx)
			}
			delete(in, h)
		default:
			want := slices.MinFunc(q, func(a, b *heldLease) int { return int(a.due - b.due) }).due
			h := q.popMin()
			if h.due != want || h.idx != -1 {
				t.Fatalf("step %d: popped due %d index %d, want due %d index -1", step, h.due, h.idx, want)
			}
			delete(in, h)
		}
		check(step)
	}
	var got, want []int64
	for h := range in {
		want = append(want, h.due)
	}
	slices.Sort(want)
	for len(q) > 0 {
		got = append(got, q.popMin().due)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("drained order (-want +got):\n%s", diff)
	}
}
