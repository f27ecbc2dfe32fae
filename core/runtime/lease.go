package runtime

import (
	"container/heap"
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

	until    time.Time // current end of the lease
	due      time.Time // when to extend: a third of the period before until
	idx      int       // position in the table's heap, -1 when not in it
	stopped  bool
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
func (w *worker) keepLease(parent context.Context, d ports.Delivery) (context.Context, *heldLease) {
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
	h.d, h.msgID, h.period, h.until, h.due, h.own, h.stopped = d, w.origID, period, until, until.Add(-period/3), false, false
	ctx := parent
	if parent == w.baseCtx {
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
	w.rn.leases.remove(h)
	h.extended.Wait()
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
	if w.leaseCtx == nil || w.leaseCtx.Err() != nil || w.leaseFrom != w.guard.current() {
		if w.leaseCancel != nil {
			w.leaseCancel(context.Canceled)
		}
		w.leaseFrom = w.guard.current()
		ctx, cancel := context.WithCancelCause(w.leaseFrom)
		w.leaseCtx, w.leaseCancel = ports.WithSettleScope(ctx, &w.scope), cancel
	}
	return w.leaseCtx, w.leaseCancel
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
	// wake for; the zero time while it waits for a poke alone. A lease
	// due no earlier needs no poke: run finds it when it wakes up, so a
	// route whose leases all settle in time wakes run about once per
	// lease period rather than whenever its heap runs empty.
	next time.Time
}

func newLeaseTable(rn *runner) *leaseTable {
	return &leaseTable{rn: rn, wake: make(chan struct{}, 1)}
}

func (t *leaseTable) add(h *heldLease) {
	t.mu.Lock()
	heap.Push(&t.heap, h)
	wake := t.next.IsZero() || h.due.Before(t.next)
	if wake {
		t.next = h.due
	}
	t.mu.Unlock()
	if wake {
		t.poke()
	}
}

// remove takes h out of the table; an extension in progress finishes and
// is not followed by another.
func (t *leaseTable) remove(h *heldLease) {
	t.mu.Lock()
	h.stopped = true
	if h.idx >= 0 {
		heap.Remove(&t.heap, h.idx)
	}
	t.mu.Unlock()
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
		now := clk.Now()
		for len(t.heap) > 0 && !t.heap[0].due.After(now) {
			h := heap.Pop(&t.heap).(*heldLease)
			h.extended.Add(1)
			t.ext.Add(1)
			go t.extend(h)
		}
		wait := time.Duration(-1)
		t.next = time.Time{}
		if len(t.heap) > 0 {
			wait = t.heap[0].due.Sub(now)
			t.next = t.heap[0].due
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
	h.until, h.due = next, next.Add(-h.period/3)
	if !h.stopped {
		heap.Push(&t.heap, h)
	}
	t.mu.Unlock()
	t.poke()
}

// leaseHeap orders held leases by due time (container/heap).
type leaseHeap []*heldLease

func (q leaseHeap) Len() int           { return len(q) }
func (q leaseHeap) Less(i, j int) bool { return q[i].due.Before(q[j].due) }
func (q leaseHeap) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].idx, q[j].idx = i, j
}

// Push appends x, a *heldLease.
func (q *leaseHeap) Push(x any) {
	h := x.(*heldLease)
	h.idx = len(*q)
	*q = append(*q, h)
}

// Pop removes the last element.
func (q *leaseHeap) Pop() any {
	old := *q
	h := old[len(old)-1]
	old[len(old)-1] = nil
	h.idx = -1
	*q = old[:len(old)-1]
	return h
}
