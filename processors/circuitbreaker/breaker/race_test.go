package breaker

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
)

// TestHalfOpenProbeBound hammers a half-open breaker from 64 goroutines and
// checks that no more than HalfOpenMaxProbes calls are ever admitted at
// once. SuccessThreshold is out of reach so the breaker stays half-open.
func TestHalfOpenProbeBound(t *testing.T) {
	for _, probes := range []int{1, 3} {
		clk := clock.NewFake(t0)
		b, _ := New(Config{FailureThreshold: 1, SuccessThreshold: 1 << 30, HalfOpenMaxProbes: probes, ResetTimeout: time.Second},
			WithClock(clk))
		tok, _ := b.Allow()
		b.Record(tok, Failure)
		clk.Advance(time.Second)

		var cur, peak, admitted atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 64 {
			wg.Go(func() {
				<-start
				for range 200 {
					tok, err := b.Allow()
					if err != nil {
						runtime.Gosched()
						continue
					}
					admitted.Add(1)
					n := cur.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					runtime.Gosched()
					cur.Add(-1)
					b.Record(tok, Success)
				}
			})
		}
		close(start)
		wg.Wait()
		if p := peak.Load(); p > int64(probes) || p < 1 {
			t.Errorf("probes=%d: peak concurrent probes = %d", probes, p)
		}
		m := b.Metrics()
		if m.State != HalfOpen || m.ProbesInFlight != 0 || m.TotalRequests != uint64(admitted.Load())+1 {
			t.Errorf("probes=%d: metrics %+v, admitted %d", probes, m, admitted.Load())
		}
	}
}

// TestConcurrentCycles drives a breaker through many transitions from many
// goroutines; the race detector and the bookkeeping checks catch misuse of
// shared state.
func TestConcurrentCycles(t *testing.T) {
	clk := clock.NewFake(t0)
	var transitions atomic.Int64
	b, _ := New(Config{FailureThreshold: 2, SuccessThreshold: 2, HalfOpenMaxProbes: 2, ResetTimeout: time.Millisecond},
		WithClock(clk), WithOnStateChange(func(Transition) { transitions.Add(1) }))
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 500 {
				if g == 0 && i%10 == 0 {
					clk.Advance(time.Millisecond)
				}
				tok, err := b.Allow()
				if err != nil {
					continue
				}
				o := Success
				if (g+i)%3 == 0 {
					o = Failure
				}
				b.Record(tok, o)
			}
		})
	}
	wg.Wait()
	m := b.Metrics()
	if recorded := m.TotalSuccesses + m.TotalFailures + m.TotalIgnored + m.StaleOutcomes; recorded != m.TotalRequests {
		t.Errorf("recorded %d outcomes for %d admitted calls: %+v", recorded, m.TotalRequests, m)
	}
	if got := uint64(transitions.Load()) + 1; got != m.Generation {
		t.Errorf("generation %d after %d transitions", m.Generation, transitions.Load())
	}
	if m.ProbesInFlight != 0 {
		t.Errorf("probes in flight = %d after every call finished", m.ProbesInFlight)
	}
}
