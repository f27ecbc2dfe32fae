package memtransport

import "github.com/gobridge-oss/gobridge/core/messaging"

// entry is one queued message: the envelope exactly as it was published
// and how often it has been delivered before.
type entry struct {
	env          *messaging.Envelope
	redeliveries int
}

// deque is a growable ring buffer of entries. It is not safe for
// concurrent use; the Receiver guards it with its mutex.
type deque struct {
	buf  []entry
	head int
	n    int
}

func (q *deque) len() int { return q.n }

func (q *deque) pushBack(e entry) {
	q.grow()
	q.buf[(q.head+q.n)%len(q.buf)] = e
	q.n++
}

func (q *deque) pushFront(e entry) {
	q.grow()
	q.head = (q.head - 1 + len(q.buf)) % len(q.buf)
	q.buf[q.head] = e
	q.n++
}

// popFront removes and returns the oldest entry; the deque must not be
// empty.
func (q *deque) popFront() entry {
	e := q.buf[q.head]
	q.buf[q.head] = entry{} // let the envelope be collected
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return e
}

// grow makes room for one more entry, doubling the buffer when it is full.
func (q *deque) grow() {
	if q.n < len(q.buf) {
		return
	}
	nb := make([]entry, max(16, 2*len(q.buf)))
	for i := range q.n {
		nb[i] = q.buf[(q.head+i)%len(q.buf)]
	}
	q.buf, q.head = nb, 0
}
