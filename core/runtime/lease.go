package runtime

import (
	"context"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// errLeaseLost cancels the work on a delivery whose lease could not be
// extended: the source hands the message to another consumer, so the
// bridge leaves it unsettled rather than finish a copy that is no longer
// its own.
var errLeaseLost = fault.ErrUnavailable.WithMessage("the source's lease on the message could not be extended")

// heldLease is one leased delivery (ports.Leased) that a worker handles.
// When a third of its lease is left, the route's lease table asks for a
// whole lease more. until, due, idx and stopped are guarded by the
// table's mutex.
type heldLease struct {
	d      ports.Delivery
	msgID  string
	period time.Duration
	cancel context.CancelCauseFunc
	own    bool // cancel ends a context made for this delivery alone

	until time.Time // current end of the lease
	// due is when to extend, a third of the period before until, in
	// Unix nanoseconds: the table compares it with integers rather than
	// time.Time arithmetic on every delivery.
	due      int64
	idx      int // position in the table's heap, -1 when not in it
	stopped  bool
	popped   bool           // the table started an extension during this hold
	extended sync.WaitGroup // an extension in progress
}

// keepLease registers d with the route's lease table when d is leased, and
// returns the context to handle d under (cancelled with errLeaseLost when
// an extension fails) and the held lease, nil when d is not leased.
// releaseLease must run before d is settled: it waits for an extension in
// progress, so Extend is never called after settlement.
//
// Most deliveries settle long before their lease needs extending; they
// cost a heap insert and removal, not a goroutine of their own. When d is
// handled under the worker's base context, its lease context is the
// worker's, reused from one delivery to the next until a lease is lost or
// a send times out, so the common case allocates no context and its sends
// keep the guarded path.
//
// base says whether parent is the worker's base context.
func (w *worker) keepLease(parent context.Context, d ports.Delivery, base bool) (context.Context, *heldLease) {
	l, ok := d.(ports.Leased)
	if !ok {
		return parent, nil
	}
	until := l.LeaseUntil()
	period := until.Sub(w.rn.opts.Clock.Now())
	if until.IsZero() || period <= 0 {
		return parent, nil
	}
	// The worker's one held lease is reused: once released, the table
	// and any extension are done with it.
	h := &w.held
	h.d, h.msgID, h.period, h.until, h.due = d, w.origID, period, until, dueOf(until, period)
	h.own, h.stopped, h.popped = false, false, false
	ctx := parent
	if base {
		ctx, h.cancel = w.leaseContext()
		w.guarded = ctx
	} else {
		ctx, h.cancel = context.WithCancelCause(parent)
		h.own = true
	}
	w.rn.leases.add(h)
	return ctx, h
}

// releaseLease stops keeping h: it leaves the lease table, and an
// extension in progress finishes first. h may be nil.
func (w *worker) releaseLease(h *heldLease) {
	if h == nil {
		return
	}
	if w.rn.leases.remove(h) {
		h.extended.Wait()
	}
	if h.own {
		h.cancel(nil)
	} else {
		w.guarded = nil
	}
	h.d, h.cancel = nil, nil
}

// leaseContext returns the worker's lease context and its cancel, making a
// new one when the last was cancelled (a lost lease, a send timeout) or
// the send guard moved on. It derives from the guard's context, so the
// guard's watchdog times out its sends as it does the base context's, and
// it carries the worker's settlement scope.
func (w *worker) leaseContext() (context.Context, context.CancelCauseFunc) {
	if w.leaseCtx == nil || w.leaseBase.Err() != nil || w.leaseFrom != w.guard.cur.Load() {
		if w.leaseCancel != nil {
			w.leaseCancel(context.Canceled)
		}
		w.leaseFrom = w.guard.cur.Load()
		ctx, cancel := context.WithCancelCause(w.leaseFrom.ctx)
		w.leaseBase, w.leaseCancel = ctx, cancel
		w.leaseCtx = ports.WithSettleScope(ctx, &w.scope)
	}
	return w.leaseCtx, w.leaseCancel
}

// dueOf is when a lease of period that ends at until needs extending, in
// Unix nanoseconds: when a third of it is left.
func dueOf(until time.Time, period time.Duration) int64 {
	return until.UnixNano() - int64(period/3)
}

// leaseTable keeps the leases of a route's in-flight deliveries in a heap
// ordered by when each needs extending. One goroutine (run) waits for the
// earliest; each extension runs on a goroutine of its own, so a slow
// source call delays no other lease.
type leaseTable struct {
	rn   *runner
	mu   sync.Mutex
	heap leaseHeap
	wake chan struct{} // the earliest due time may have changed
	ext  sync.WaitGroup
	// next is when run wakes up next by itself, or has been poked to
	// wake for (a due time), when armed; while not armed run waits for a
	// poke alone. A lease due no earlier needs no poke: run finds it when
	// it wakes up, so a route whose leases all settle in time wakes run
	// about once per lease period rather than whenever its heap runs
	// empty.
	next  int64
	armed bool
}

func newLeaseTable(rn *runner) *leaseTable {
	return &leaseTable{rn: rn, wake: make(chan struct{}, 1)}
}

func (t *leaseTable) add(h *heldLease) {
	t.mu.Lock()
	t.heap.push(h)
	wake := !t.armed || h.due < t.next
	if wake {
		t.next, t.armed = h.due, true
	}
	t.mu.Unlock()
	if wake {
		t.poke()
	}
}

// remove takes h out of the table; an extension in progress finishes and
// is not followed by another. It reports whether the table started an
// extension of h, which the caller must then wait for (h.extended).
func (t *leaseTable) remove(h *heldLease) bool {
	t.mu.Lock()
	h.stopped = true
	if h.idx >= 0 {
		t.heap.remove(h.idx)
	}
	popped := h.popped
	t.mu.Unlock()
	return popped
}

func (t *leaseTable) poke() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// run extends leases as they fall due until ctx ends, then waits for the
// extensions it started.
func (t *leaseTable) run(ctx context.Context) {
	defer t.ext.Wait()
	clk := t.rn.opts.Clock
	for {
		t.mu.Lock()
		now := clk.Now().UnixNano()
		for len(t.heap) > 0 && t.heap[0].due <= now {
			h := t.heap.popMin()
			h.popped = true
			h.extended.Add(1)
			t.ext.Add(1)
			go t.extend(h)
		}
		wait := time.Duration(-1)
		t.armed = len(t.heap) > 0
		if t.armed {
			t.next = t.heap[0].due
			wait = time.Duration(t.next - now)
		}
		t.mu.Unlock()
		var fire <-chan time.Time
		var timer ports.Timer
		if wait >= 0 {
			timer = clk.NewTimer(wait)
			fire = timer.C()
		}
		select {
		case <-ctx.Done():
		case <-t.wake:
		case <-fire:
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// extend asks h's source for a whole lease more and puts h back in the
// table, or cancels the work on h when the source refuses.
func (t *leaseTable) extend(h *heldLease) {
	defer t.ext.Done()
	defer h.extended.Done()
	rn, clk := t.rn, t.rn.opts.Clock
	next := clk.Now().Add(h.period)
	// The call gets what is left of the lease: past it, extending no
	// longer helps.
	ctx, cancel := context.WithTimeout(context.Background(), max(h.until.Sub(clk.Now()), h.period/3))
	err := h.d.Extend(ctx, next)
	cancel()
	if err != nil {
		rn.m.leaseLost.Add(1)
		rn.log.Warn("lease extension failed; stopping work on the message and leaving it to its source",
			"message_id", h.msgID, "err", err)
		h.cancel(errLeaseLost)
		return
	}
	rn.m.leaseExtended.Add(1)
	t.mu.Lock()
	h.until, h.due = next, dueOf(next, h.period)
	if !h.stopped {
		t.heap.push(h)
	}
	t.mu.Unlock()
	t.poke()
}

// leaseHeap is a binary min-heap of held leases by due time, each
// knowing its index. It is written out for the one element type rather
// than through container/heap, whose interface calls cost more than the
// comparisons on a path every leased delivery takes twice.
type leaseHeap []*heldLease

func (q *leaseHeap) push(h *heldLease) {
	h.idx = len(*q)
	*q = append(*q, h)
	q.up(h.idx)
}

// popMin removes and returns the lease due first; q must not be empty.
func (q *leaseHeap) popMin() *heldLease {
	h := (*q)[0]
	q.remove(0)
	return h
}

// remove takes out the lease at index i.
func (q *leaseHeap) remove(i int) {
	old := *q
	n := len(old) - 1
	h := old[i]
	if i != n {
		q.swap(i, n)
	}
	old[n] = nil
	*q = old[:n]
	h.idx = -1
	if i != n && !q.down(i) {
		q.up(i)
	}
}

func (q leaseHeap) swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].idx, q[j].idx = i, j
}

func (q leaseHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2 // parent
		if q[j].due >= q[i].due {
			return
		}
		q.swap(i, j)
		j = i
	}
}

// down moves the lease at i towards the leaves and reports whether it
// moved.
func (q leaseHeap) down(i0 int) bool {
	i, n := i0, len(q)
	for {
		j := 2*i + 1 // left child
		if j >= n {
			break
		}
		if r := j + 1; r < n && q[r].due < q[j].due {
			j = r
		}
		if q[j].due >= q[i].due {
			break
		}
		q.swap(i, j)
		i = j
	}
	return i > i0
}
