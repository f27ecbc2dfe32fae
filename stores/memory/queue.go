package memory

import (
	"container/heap"
	"time"
)

// slot is one scheduling entry of a record in a partition queue. It is
// current while the record is live and its generation still matches;
// otherwise it is dropped when it surfaces (lazy deletion).
type slot struct {
	rec *record
	gen uint64
	at  time.Time // when the record becomes claimable (waiting queue only)
}

func (s slot) current() bool { return !s.rec.done && s.gen == s.rec.gen }

// readyQueue holds claimable records, lowest persist sequence first.
type readyQueue []slot

func (q readyQueue) Len() int           { return len(q) }
func (q readyQueue) Less(i, j int) bool { return q[i].rec.seq < q[j].rec.seq }
func (q readyQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *readyQueue) Push(x any)        { *q = append(*q, x.(slot)) }
func (q *readyQueue) Pop() any          { return popLast((*[]slot)(q)) }

// waitQueue holds records that become claimable later (scheduled, or
// claimed until the claim goes stale), earliest first.
type waitQueue []slot

func (q waitQueue) Len() int { return len(q) }
func (q waitQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].rec.seq < q[j].rec.seq
}
func (q waitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *waitQueue) Push(x any)   { *q = append(*q, x.(slot)) }
func (q *waitQueue) Pop() any     { return popLast((*[]slot)(q)) }

func popLast(q *[]slot) any {
	old := *q
	x := old[len(old)-1]
	old[len(old)-1] = slot{}
	*q = old[:len(old)-1]
	return x
}

// partition is the per-partition state of the outbox: the fencing mark,
// the number of live records and the two queues.
type partition struct {
	fence   uint64
	depth   int
	ready   readyQueue
	waiting waitQueue
}

// schedule queues r, at its current generation, to become claimable at
// when: at once if when is not after now.
func (p *partition) schedule(r *record, when, now time.Time) {
	if when.After(now) {
		heap.Push(&p.waiting, slot{rec: r, gen: r.gen, at: when})
		return
	}
	heap.Push(&p.ready, slot{rec: r, gen: r.gen})
}

// promote moves every waiting record that is due at now to the ready
// queue.
func (p *partition) promote(now time.Time) {
	for len(p.waiting) > 0 && !p.waiting[0].at.After(now) {
		s := heap.Pop(&p.waiting).(slot)
		if s.current() {
			heap.Push(&p.ready, slot{rec: s.rec, gen: s.gen})
		}
	}
}

// next pops the claimable record with the lowest sequence, or nil.
func (p *partition) next() *record {
	for len(p.ready) > 0 {
		s := heap.Pop(&p.ready).(slot)
		if s.current() {
			return s.rec
		}
	}
	return nil
}

// compact drops slots that are no longer current once they outnumber the
// live records, so that completed records do not linger in the queues.
func (p *partition) compact() {
	if len(p.ready)+len(p.waiting) <= 2*p.depth+64 {
		return
	}
	p.ready = keepCurrent(p.ready)
	p.waiting = keepCurrent(p.waiting)
	heap.Init(&p.ready)
	heap.Init(&p.waiting)
}

func keepCurrent[Q ~[]slot](q Q) Q {
	kept := q[:0]
	for _, s := range q {
		if s.current() {
			kept = append(kept, s)
		}
	}
	clear(q[len(kept):])
	return kept
}
