package tenant

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// peakTracker serialises a MemoryTracker so that it can record the exact
// peak of a tenant's in-flight count.
type peakTracker struct {
	mu   sync.Mutex
	t    *MemoryTracker
	peak int64
}

func (p *peakTracker) IncrementInFlight(ctx context.Context, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.t.IncrementInFlight(ctx, id)
	u, _ := p.t.Usage(ctx, id)
	p.peak = max(p.peak, u.InFlight)
	return nil
}

func (p *peakTracker) DecrementInFlight(ctx context.Context, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.t.DecrementInFlight(ctx, id)
}

func (p *peakTracker) IncrementProcessed(ctx context.Context, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.t.IncrementProcessed(ctx, id)
}

func (p *peakTracker) Usage(ctx context.Context, id string) (Usage, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.t.Usage(ctx, id)
}

func maxInto(a *atomic.Int64, n int64) {
	for m := a.Load(); n > m && !a.CompareAndSwap(m, n); m = a.Load() {
	}
}

// TestQuotaOvershootBound: 64 deliveries of one tenant arrive at once with
// a ceiling of 4. Admitted deliveries hold their slot until every
// admission has been decided. The peak in-flight count must stay within
// the documented bound, MaxInFlight - 1 + the number of admissions in
// progress at once, and every count must be released afterwards.
func TestQuotaOvershootBound(t *testing.T) {
	const (
		workers = 64
		ceiling = 4
		rounds  = 20
	)
	for round := range rounds {
		tr := &peakTracker{t: NewMemoryTracker()}
		p, err := New(Config{}, WithUsageTracker(tr),
			WithValidator(&fakeValidator{infos: map[string]TenantInfo{"acme": active("acme", 0, ceiling)}}))
		if err != nil {
			t.Fatal(err)
		}
		var admitting, maxAdmitting, accepted, refused atomic.Int64
		var decided sync.WaitGroup
		decided.Add(workers)
		allDecided := make(chan struct{})
		go func() { decided.Wait(); close(allDecided) }()

		start := make(chan struct{})
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				var once sync.Once
				decide := func() { once.Do(func() { admitting.Add(-1); decided.Done() }) }
				next := func(context.Context, *messaging.Envelope) error {
					accepted.Add(1)
					decide()
					<-allDecided
					return nil
				}
				ctx := context.Background()
				var scope *ports.SettleScope
				if w%2 == 0 { // half run as under the runtime, half without a scope
					scope = new(ports.SettleScope)
					ctx = ports.WithSettleScope(ctx, scope)
				}
				<-start
				maxInto(&maxAdmitting, admitting.Add(1))
				err := p.Process(ctx, envWith("x-tenant-id", "acme", ""), next)
				if err != nil {
					if !errors.Is(err, fault.ErrTenantQuotaExceeded) || !fault.IsRecoverable(err) {
						t.Errorf("unexpected error %v", err)
					}
					refused.Add(1)
				}
				decide()
				if scope != nil {
					scope.Fire(ports.Settlement{Outcome: ports.SettledAcked, Terminal: err == nil, Err: err})
				}
			})
		}
		close(start)
		wg.Wait()

		bound := int64(ceiling) - 1 + maxAdmitting.Load()
		t.Logf("round %d: peak %d, concurrent admissions %d, accepted %d", round, tr.peak, maxAdmitting.Load(), accepted.Load())
		if tr.peak > bound || tr.peak < ceiling {
			t.Errorf("round %d: peak in flight %d, bound %d (ceiling %d, concurrent admissions %d)",
				round, tr.peak, bound, ceiling, maxAdmitting.Load())
		}
		if accepted.Load()+refused.Load() != workers || accepted.Load() < ceiling {
			t.Errorf("round %d: accepted %d, refused %d", round, accepted.Load(), refused.Load())
		}
		u, _ := tr.Usage(context.Background(), "acme")
		if u != (Usage{InFlight: 0, Processed: accepted.Load()}) {
			t.Errorf("round %d: usage after settlement %+v, accepted %d", round, u, accepted.Load())
		}
	}
}

// TestMemoryTrackerConcurrent hammers the in-memory tracker directly.
func TestMemoryTrackerConcurrent(t *testing.T) {
	tr := NewMemoryTracker()
	ctx := context.Background()
	ids := []string{"a", "b", "c"}
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Go(func() {
			id := ids[g%len(ids)]
			for range 200 {
				_ = tr.IncrementInFlight(ctx, id)
				_, _ = tr.Usage(ctx, id)
				if err := tr.DecrementInFlight(ctx, id); err != nil {
					t.Error(err)
				}
				_ = tr.IncrementProcessed(ctx, id)
			}
		})
	}
	wg.Wait()
	want := map[string]Usage{"a": {0, 22 * 200}, "b": {0, 21 * 200}, "c": {0, 21 * 200}}
	got := tr.Snapshot()
	for id, u := range want {
		if got[id] != u {
			t.Errorf("%s: %+v, want %+v", id, got[id], u)
		}
	}
}

func TestMemoryTrackerBasics(t *testing.T) {
	var tr MemoryTracker // the zero value works
	ctx := context.Background()
	if u, err := tr.Usage(ctx, "x"); err != nil || u != (Usage{}) {
		t.Errorf("unknown tenant: %+v, %v", u, err)
	}
	if err := tr.DecrementInFlight(ctx, "x"); !errors.Is(err, ErrNotInFlight) {
		t.Errorf("decrement at zero = %v", err)
	}
	_ = tr.IncrementInFlight(ctx, "x")
	_ = tr.IncrementProcessed(ctx, "x")
	if u, _ := tr.Usage(ctx, "x"); u != (Usage{InFlight: 1, Processed: 1}) {
		t.Errorf("usage %+v", u)
	}
}
