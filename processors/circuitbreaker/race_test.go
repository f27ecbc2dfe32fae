package circuitbreaker

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// TestHalfOpenProbesUnderLoad: 64 goroutines hammer a half-open breaker
// through the processor; the fake next tracks the peak number of calls
// inside it, which must never exceed HalfOpenMaxProbes.
func TestHalfOpenProbesUnderLoad(t *testing.T) {
	for _, probes := range []int{1, 4} {
		p, clk := newProc(t, Config{FailureThreshold: 1, SuccessThreshold: 1 << 30,
			HalfOpenMaxProbes: probes, ResetTimeout: time.Second, Key: KeySubject})
		_ = run(p, "s", failWith(fault.ErrUnavailable))
		clk.Advance(time.Second)

		var cur, peak, admitted, refused atomic.Int64
		next := func(context.Context, *messaging.Envelope) error {
			n := cur.Add(1)
			for m := peak.Load(); n > m && !peak.CompareAndSwap(m, n); m = peak.Load() {
			}
			admitted.Add(1)
			runtime.Gosched()
			cur.Add(-1)
			return nil
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() {
				<-start
				for range 100 {
					if err := run(p, "s", next); err != nil {
						if !errors.Is(err, fault.ErrUnavailable) {
							t.Errorf("unexpected error %v", err)
						}
						refused.Add(1)
					}
				}
			})
		}
		close(start)
		wg.Wait()
		if pk := peak.Load(); pk < 1 || pk > int64(probes) {
			t.Errorf("probes=%d: peak in flight %d", probes, pk)
		}
		m := p.Metrics()["s"]
		if m.State != HalfOpen || m.ProbesInFlight != 0 || int64(m.TotalSuccesses) != admitted.Load() ||
			int64(m.TotalRejections) != refused.Load() {
			t.Errorf("probes=%d: %+v (admitted %d, refused %d)", probes, m, admitted.Load(), refused.Load())
		}
	}
}

// TestCacheUnderChurn runs many keys through a small cache from many
// goroutines; every admitted call must be recorded on its own breaker.
func TestCacheUnderChurn(t *testing.T) {
	p, _ := newProc(t, Config{Key: KeySubject}, WithMaxBreakers(4))
	var wg sync.WaitGroup
	keys := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	for g := range 16 {
		wg.Go(func() {
			for i := range 300 {
				_ = run(p, keys[(g+i)%len(keys)], ok)
			}
		})
	}
	wg.Wait()
	s := p.Stats()
	if s.Size > s.Capacity {
		t.Errorf("cache above capacity after every call drained: %+v", s)
	}
	for k, m := range p.Metrics() {
		if m.TotalRequests != m.TotalSuccesses || m.ProbesInFlight != 0 {
			t.Errorf("%s: %+v", k, m)
		}
	}
}
