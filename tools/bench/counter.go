package bench

import (
	"slices"
	"sync"
	"time"
)

// Counter is a sink's tally for one run of N messages numbered 0..N-1:
// how many distinct sequence numbers arrived, how many arrived again, which
// never arrived, what did not belong to the run, and the end-to-end
// latency of each first arrival. It is safe for concurrent use.
type Counter struct {
	mu        sync.Mutex
	run       uint64
	seen      []uint32 // arrivals per sequence number
	unique    int
	dups      int
	stray     int
	latencies []time.Duration
	first     time.Time
	last      time.Time // the last first arrival
	lastAny   time.Time // the last arrival of any kind
	done      chan struct{}
}

// NewCounter counts a run of n messages stamped with run.
func NewCounter(run uint64, n int) *Counter {
	c := &Counter{run: run, seen: make([]uint32, n), latencies: make([]time.Duration, 0, n), done: make(chan struct{})}
	if n == 0 {
		close(c.done)
	}
	return c
}

// Observe records one arrival at time at. A stamp from another run or a
// sequence number out of range counts as stray.
func (c *Counter) Observe(s Stamp, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastAny = at
	if s.Run != c.run || s.Seq >= uint64(len(c.seen)) {
		c.stray++
		return
	}
	c.seen[s.Seq]++
	if c.seen[s.Seq] > 1 {
		c.dups++
		return
	}
	if c.unique == 0 {
		c.first = at
	}
	c.unique++
	c.last = at
	c.latencies = append(c.latencies, max(at.Sub(s.Sent), 0))
	if c.unique == len(c.seen) {
		close(c.done)
	}
}

// Done is closed once every sequence number arrived at least once.
func (c *Counter) Done() <-chan struct{} { return c.done }

// Unique is the number of distinct sequence numbers seen so far.
func (c *Counter) Unique() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unique
}

// Duplicates is the number of repeated arrivals so far.
func (c *Counter) Duplicates() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dups
}

// LastArrival is the time of the most recent arrival of any kind (zero
// before the first).
func (c *Counter) LastArrival() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastAny
}

// Tally is a Counter's result.
type Tally struct {
	N          int           // messages in the run
	Unique     int           // distinct sequence numbers that arrived
	Duplicates int           // arrivals beyond the first of a sequence number
	Missing    int           // sequence numbers that never arrived
	Stray      int           // arrivals from another run or out of range
	First      time.Time     // first arrival
	Last       time.Time     // last first arrival
	P50, P99   time.Duration // end-to-end latency of first arrivals
	MissingIDs []uint64      // up to the first 20 missing sequence numbers
}

// Rate is the throughput between the first and the last first arrival,
// in messages per second (0 with fewer than two arrivals).
func (t Tally) Rate() float64 {
	d := t.Last.Sub(t.First)
	if t.Unique < 2 || d <= 0 {
		return 0
	}
	return float64(t.Unique-1) / d.Seconds()
}

// Tally returns the counts so far.
func (c *Counter) Tally() Tally {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := Tally{N: len(c.seen), Unique: c.unique, Duplicates: c.dups, Stray: c.stray,
		Missing: len(c.seen) - c.unique, First: c.first, Last: c.last}
	for i, n := range c.seen {
		if n == 0 && len(t.MissingIDs) < 20 {
			t.MissingIDs = append(t.MissingIDs, uint64(i))
		}
	}
	lat := slices.Clone(c.latencies)
	slices.Sort(lat)
	t.P50, t.P99 = Percentile(lat, 50), Percentile(lat, 99)
	return t
}

// Percentile returns the p-th percentile (nearest rank) of sorted values,
// 0 for none.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}
