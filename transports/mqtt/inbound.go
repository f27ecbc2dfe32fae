package mqtt

import (
	"slices"
	"sync"
	"time"

	"github.com/eclipse/paho.golang/paho"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// inbound is one received message waiting for, or held between, hand-overs
// to the route.
type inbound struct {
	pub      *paho.Publish
	tok      *ackToken // nil for QoS 0
	id       string    // the envelope ID when the message carries none
	received time.Time
	attempt  int  // in-process redeliveries so far
	refused  bool // a Retry was refused once (see delivery.Retry)
}

// queue holds a receiver's messages in arrival order. QoS 1/2 messages
// are bounded by the session's Receive Maximum (the broker sends no more
// unacknowledged ones); QoS 0 messages by their own limit.
type queue struct {
	mu      sync.Mutex
	items   []*inbound
	head    int
	qos0    int
	qos0Max int
	ready   chan struct{} // holds a token while items may be waiting
}

func newQueue(qos0Max int) *queue {
	return &queue{qos0Max: qos0Max, ready: make(chan struct{}, 1)}
}

// push appends m; it reports false when m is QoS 0 and the QoS 0 limit is
// reached.
func (q *queue) push(m *inbound) bool {
	q.mu.Lock()
	if m.tok == nil {
		if q.qos0 >= q.qos0Max {
			q.mu.Unlock()
			return false
		}
		q.qos0++
	}
	q.items = append(q.items, m)
	q.mu.Unlock()
	q.signal()
	return true
}

// pushFront puts back a message the route refused, to be handed out first.
func (q *queue) pushFront(m *inbound) {
	q.mu.Lock()
	if m.tok == nil {
		q.qos0++
	}
	if q.head > 0 {
		q.head--
		q.items[q.head] = m
	} else {
		q.items = append([]*inbound{m}, q.items...)
	}
	q.mu.Unlock()
	q.signal()
}

// pushFrontAll puts ms (oldest first) before everything queued, to be
// handed out first: messages taken over from a closed receiver.
func (q *queue) pushFrontAll(ms []*inbound) {
	q.mu.Lock()
	for _, m := range ms {
		if m.tok == nil {
			q.qos0++
		}
	}
	q.items = append(append(make([]*inbound, 0, len(ms)+len(q.items)-q.head), ms...), q.items[q.head:]...)
	q.head = 0
	q.mu.Unlock()
	q.signal()
}

// takeAll removes and returns every queued message, oldest first.
func (q *queue) takeAll() []*inbound {
	q.mu.Lock()
	defer q.mu.Unlock()
	ms := slices.Clone(q.items[q.head:])
	clear(q.items)
	q.items, q.head, q.qos0 = q.items[:0], 0, 0
	return ms
}

// pop removes the oldest message, or returns nil.
func (q *queue) pop() *inbound {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.items) {
		return nil
	}
	m := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head > 256 && q.head > len(q.items)/2 {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	if m.tok == nil {
		q.qos0--
	}
	return m
}

func (q *queue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// envelope builds a fresh envelope for one hand-over; the route may
// annotate it, and a redelivery must not show that.
func (m *inbound) envelope() *messaging.Envelope {
	return toEnvelope(m.pub, m.id, m.received)
}
