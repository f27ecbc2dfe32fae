package circuitbreaker

import (
	"errors"
	"slices"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/google/go-cmp/cmp"
)

func keys(p *Processor) []string {
	var ks []string
	for k := range p.Metrics() {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func TestLRUEviction(t *testing.T) {
	p, _ := newProc(t, Config{Key: KeySubject}, WithMaxBreakers(2))
	for _, s := range []string{"a", "b", "a", "c"} { // b is least recently used when c arrives
		_ = run(p, s, ok)
	}
	if diff := cmp.Diff([]string{"a", "c"}, keys(p)); diff != "" {
		t.Errorf("cached keys (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Stats{Size: 2, Capacity: 2, Evictions: 1}, p.Stats()); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

func TestMaxBreakersDefault(t *testing.T) {
	p, _ := newProc(t, Config{Key: KeySubject}, WithMaxBreakers(-1))
	if c := p.Stats().Capacity; c != DefaultMaxBreakers {
		t.Errorf("capacity = %d, want %d", c, DefaultMaxBreakers)
	}
}

// TestBusyBreakerNotEvicted checks the soft cap: a breaker with a call in
// flight survives, the cache grows past capacity while every candidate is
// busy, and it shrinks back as calls finish.
func TestBusyBreakerNotEvicted(t *testing.T) {
	p, _ := newProc(t, Config{Key: KeySubject}, WithMaxBreakers(1))
	g := newGate()
	a := g.start(p, "a")
	b := g.start(p, "b")
	if diff := cmp.Diff(Stats{Size: 2, Capacity: 1}, p.Stats()); diff != "" {
		t.Errorf("stats with both in flight (-want +got):\n%s", diff)
	}
	g.release <- nil // whichever finishes first
	<-firstOf(a, b)
	if s := p.Stats(); s.Size != 1 || s.Evictions != 1 {
		t.Errorf("after one call drained: %+v", s)
	}
	g.release <- nil
	<-firstOf(a, b)
	got := p.Metrics()
	if len(got) != 1 {
		t.Fatalf("cached %v", keys(p))
	}
	for _, m := range got {
		// The surviving breaker recorded its own call: nothing was lost
		// to an orphaned breaker.
		if m.TotalRequests != 1 || m.TotalSuccesses != 1 {
			t.Errorf("survivor metrics %+v", m)
		}
	}
}

// firstOf returns whichever channel has a value, leaving the other.
func firstOf(a, b <-chan error) <-chan error {
	out := make(chan error, 1)
	select {
	case err := <-a:
		out <- err
	case err := <-b:
		out <- err
	}
	return out
}

func TestOpenEvictions(t *testing.T) {
	mem := telemetry.NewMemory()
	p, _ := newProc(t, Config{Name: "cb", FailureThreshold: 1, Key: KeySubject}, WithMaxBreakers(1), WithMeter(mem))
	_ = run(p, "a", failWith(fault.ErrUnavailable)) // a opens
	_ = run(p, "b", ok)                             // evicts the open a
	_ = run(p, "c", ok)                             // evicts the closed b
	if diff := cmp.Diff(Stats{Size: 1, Capacity: 1, Evictions: 2, OpenEvictions: 1}, p.Stats()); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	got := []float64{
		mem.Value("gobridge_circuitbreaker_evictions_total", "cb", "open"),
		mem.Value("gobridge_circuitbreaker_evictions_total", "cb", "closed"),
	}
	if diff := cmp.Diff([]float64{1, 1}, got); diff != "" {
		t.Errorf("eviction counters (-want +got):\n%s", diff)
	}
	// An evicted key starts over with a fresh, closed breaker.
	if err := run(p, "a", ok); errors.Is(err, fault.ErrUnavailable) {
		t.Errorf("re-created breaker for a is not closed: %v", err)
	}
}
