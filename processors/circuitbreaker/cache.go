package circuitbreaker

import (
	"sync"
	"sync/atomic"

	"github.com/gobridge-oss/gobridge/processors/circuitbreaker/breaker"
)

// entry is one cached breaker. pins counts the calls using it; a pinned
// entry is never evicted, so an outcome is always recorded on the breaker
// that admitted the call.
type entry struct {
	key        string
	b          *breaker.Breaker
	inst       *keyInstruments
	pins       atomic.Int32
	prev, next *entry // LRU list; guarded by cache.mu
}

// Stats describes the breaker cache.
type Stats struct {
	// Size is the number of cached breakers. It can exceed Capacity while
	// every eviction candidate has calls in flight.
	Size int `json:"size"`
	// Capacity is the configured WithMaxBreakers bound.
	Capacity int `json:"capacity"`
	// Evictions counts every breaker dropped from the cache.
	Evictions uint64 `json:"evictions"`
	// OpenEvictions counts the evicted breakers that were open: a sign that
	// the key space churns faster than the cache can hold it.
	OpenEvictions uint64 `json:"open_evictions"`
}

// cache is an LRU of breakers keyed by string with in-flight pinning.
type cache struct {
	capacity int
	create   func(key string) *entry
	inst     *instruments

	mu         sync.Mutex
	m          map[string]*entry
	head, tail *entry // head is the most recently used
	evictions  uint64
	openEvicts uint64
	over       atomic.Bool // len(m) > capacity after the last trim
}

func newCache(capacity int, inst *instruments, create func(string) *entry) *cache {
	return &cache{capacity: capacity, create: create, inst: inst, m: make(map[string]*entry)}
}

// acquire returns key's entry, creating it when absent, marked most
// recently used and pinned. The caller must call release once.
func (c *cache) acquire(key string) *entry {
	c.mu.Lock()
	e, ok := c.m[key]
	if ok {
		c.unlink(e)
		c.pushFront(e)
		e.pins.Add(1)
	} else {
		e = c.create(key)
		c.m[key] = e
		c.pushFront(e)
		e.pins.Add(1) // pinned before trimming, so it cannot evict itself
		c.trim()
	}
	c.mu.Unlock()
	return e
}

// release unpins e. When the cache ran over capacity because every
// candidate was busy, the last call to finish trims it back.
func (c *cache) release(e *entry) {
	if e.pins.Add(-1) == 0 && c.over.Load() {
		c.mu.Lock()
		c.trim()
		c.mu.Unlock()
	}
}

// trim evicts unpinned entries from the cold end until the cache fits.
// Pins only grow under c.mu, so an entry seen unpinned here stays so.
// c.mu must be held.
func (c *cache) trim() {
	if len(c.m) <= c.capacity {
		c.over.Store(false)
		return
	}
	// Raise the flag before reading any pin count: a call that unpins an
	// entry after this scan skipped it is then sure to see the flag and
	// trim again, so the cache cannot stay oversized with nothing pinned.
	c.over.Store(true)
	for e := c.tail; len(c.m) > c.capacity && e != nil; {
		prev := e.prev
		if e.pins.Load() == 0 {
			c.evict(e)
		}
		e = prev
	}
	c.over.Store(len(c.m) > c.capacity)
}

func (c *cache) evict(e *entry) {
	c.unlink(e)
	delete(c.m, e.key)
	s := e.b.State()
	c.evictions++
	if s == breaker.Open {
		c.openEvicts++
	}
	c.inst.evicted(s)
}

func (c *cache) pushFront(e *entry) {
	e.prev, e.next = nil, c.head
	if c.head != nil {
		c.head.prev = e
	}
	c.head = e
	if c.tail == nil {
		c.tail = e
	}
}

func (c *cache) unlink(e *entry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		c.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = nil, nil
}

// entries returns the cached entries, most recently used first.
func (c *cache) entries() []*entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*entry, 0, len(c.m))
	for e := c.head; e != nil; e = e.next {
		out = append(out, e)
	}
	return out
}

func (c *cache) stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Size: len(c.m), Capacity: c.capacity, Evictions: c.evictions, OpenEvictions: c.openEvicts}
}
