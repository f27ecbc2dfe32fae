package runtime

import (
	"container/list"
	"sync"
	"sync/atomic"
	"time"
)

// attemptTracker counts failed attempts per message for sources that do not
// count redeliveries themselves, and remembers when a message first failed
// and which fan-out destinations already accepted it. It only holds messages
// that have failed at least once, and at most capacity of them: the oldest
// entry is forgotten first, which can only make a retry ladder restart, never
// lose a message.
//
// Messages are known by their trackKey (see trackkey.go). A message with
// the zero key cannot be recognised when it comes back, so it is never
// tracked: every failure counts as its first, and fan-out sends it to every
// destination again.
type attemptTracker struct {
	mu       sync.Mutex
	capacity int
	entries  map[trackKey]*list.Element
	order    *list.List // of *attemptEntry, oldest at the front
	// size mirrors len(entries) so the success path can skip the lock
	// when nothing is tracked, which is the common case.
	size atomic.Int64
}

type attemptEntry struct {
	key      trackKey
	failures int
	first    time.Time
	sent     map[destination]bool // fan-out destinations that already accepted
}

// destination is one fan-out target: a binding and the address the message
// was sent to through it. A resolver may use one binding with several
// addresses.
type destination struct {
	binding, address string
}

func newAttemptTracker(capacity int) *attemptTracker {
	return &attemptTracker{capacity: max(capacity, 1), entries: make(map[trackKey]*list.Element), order: list.New()}
}

// fail records one more failure of id and returns the failure count and the
// time of the first failure.
func (t *attemptTracker) fail(id trackKey, now time.Time) (int, time.Time) {
	if id == (trackKey{}) {
		return 1, now
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.entry(id, now)
	e.failures++
	return e.failures, e.first
}

// markSent remembers that the fan-out destinations in dests accepted
// message id.
func (t *attemptTracker) markSent(id trackKey, now time.Time, dests []destination) {
	if len(dests) == 0 || id == (trackKey{}) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.entry(id, now)
	if e.sent == nil {
		e.sent = make(map[destination]bool, len(dests))
	}
	for _, d := range dests {
		e.sent[d] = true
	}
}

// sent reports whether dest already accepted message id.
func (t *attemptTracker) sent(id trackKey, dest destination) bool {
	if t.size.Load() == 0 || id == (trackKey{}) {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if el, ok := t.entries[id]; ok {
		return el.Value.(*attemptEntry).sent[dest]
	}
	return false
}

// peek returns the failure count of id and when it first failed; (0, now)
// for a message that never failed.
func (t *attemptTracker) peek(id trackKey, now time.Time) (int, time.Time) {
	if t.size.Load() == 0 {
		return 0, now
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if el, ok := t.entries[id]; ok {
		e := el.Value.(*attemptEntry)
		return e.failures, e.first
	}
	return 0, now
}

// forget drops id once its message is settled for good.
func (t *attemptTracker) forget(id trackKey) {
	if t.size.Load() == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if el, ok := t.entries[id]; ok {
		t.order.Remove(el)
		delete(t.entries, id)
		t.size.Add(-1)
	}
}

// active reports whether any message is tracked; callers skip computing
// a key when nothing is.
func (t *attemptTracker) active() bool { return t.size.Load() != 0 }

// len returns the number of tracked messages.
func (t *attemptTracker) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.entries)
}

// entry returns the entry for id, creating it and evicting the oldest when
// full; t.mu must be held.
func (t *attemptTracker) entry(id trackKey, now time.Time) *attemptEntry {
	if el, ok := t.entries[id]; ok {
		return el.Value.(*attemptEntry)
	}
	if len(t.entries) >= t.capacity {
		oldest := t.order.Front()
		t.order.Remove(oldest)
		delete(t.entries, oldest.Value.(*attemptEntry).key)
		t.size.Add(-1)
	}
	e := &attemptEntry{key: id, first: now}
	t.entries[id] = t.order.PushBack(e)
	t.size.Add(1)
	return e
}
