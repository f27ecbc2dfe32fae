package servicebus

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// recorder is a batcher flush that records each call's items and answers
// each item with an error naming its value, so that a caller can tell it
// got its own answer.
type recorder struct {
	mu    sync.Mutex
	calls [][]int
}

// The call is recorded before any item is answered: an answered caller
// may read the record at once.
func (r *recorder) flush(_ context.Context, items []batchItem[int]) {
	var vs []int
	for _, it := range items {
		vs = append(vs, it.v)
	}
	r.mu.Lock()
	r.calls = append(r.calls, vs)
	r.mu.Unlock()
	for _, it := range items {
		it.done <- fmt.Errorf("answer %d", it.v)
	}
}

func (r *recorder) sizes() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int
	for _, c := range r.calls {
		out = append(out, len(c))
	}
	return out
}

// sendAll runs n concurrent requests (values 0..n-1) and checks that
// each got its own answer.
func sendAll(t *testing.T, b *batcher[int], n int) {
	t.Helper()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := b.do(t.Context(), i); err == nil || err.Error() != fmt.Sprintf("answer %d", i) {
				t.Errorf("request %d got %v", i, err)
			}
		})
	}
	wg.Wait()
}

// Requests that arrive while others keep arriving share one call; a call
// stops gathering once most requests are pending; without a window each
// request that finds no call under way goes at once.
func TestBatcherGathers(t *testing.T) {
	tests := []struct {
		name        string
		window, gap time.Duration
		most, n     int
		want        []int
	}{
		{name: "one wave, one call", window: 10 * time.Second, gap: 500 * time.Millisecond, most: 100, n: 20, want: []int{20}},
		{name: "full before the gap", window: 10 * time.Second, gap: 10 * time.Second, most: 5, n: 5, want: []int{5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{}
			b := newBatcher(tt.window, tt.gap, tt.most, r.flush)
			start := time.Now()
			sendAll(t, b, tt.n)
			if diff := cmp.Diff(tt.want, r.sizes()); diff != "" {
				t.Errorf("call sizes (-want +got):\n%s", diff)
			}
			if tt.most == tt.n && time.Since(start) > tt.gap/2 {
				t.Errorf("a full gathering waited %v", time.Since(start))
			}
		})
	}
}

// A lone request waits for the gap, not for the whole window; with no
// window it does not wait at all.
func TestBatcherLoneRequest(t *testing.T) {
	tests := []struct {
		name        string
		window, gap time.Duration
		atMost      time.Duration
	}{
		{name: "gap, not window", window: time.Minute, gap: 50 * time.Millisecond, atMost: 30 * time.Second},
		{name: "no window", window: 0, gap: time.Minute, atMost: 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{}
			b := newBatcher(tt.window, tt.gap, 100, r.flush)
			start := time.Now()
			sendAll(t, b, 1)
			if took := time.Since(start); took > tt.atMost {
				t.Errorf("a lone request took %v", took)
			}
			if diff := cmp.Diff([]int{1}, r.sizes()); diff != "" {
				t.Errorf("call sizes (-want +got):\n%s", diff)
			}
		})
	}
}

// Requests that fill a call while the previous call is under way go as
// soon as it ends, without waiting for a gap.
func TestBatcherFullWhileFlushing(t *testing.T) {
	release := make(chan struct{})
	var calls [][]int
	var mu sync.Mutex
	b := newBatcher(time.Minute, time.Minute, 3, func(_ context.Context, items []batchItem[int]) {
		var vs []int
		for _, it := range items {
			vs = append(vs, it.v)
		}
		mu.Lock()
		calls = append(calls, vs)
		first := len(calls) == 1
		mu.Unlock()
		if first {
			<-release
		}
		for _, it := range items {
			it.done <- nil
		}
	})
	var wg sync.WaitGroup
	send := func(from int) {
		for v := from; v < from+3; v++ {
			wg.Go(func() {
				if err := b.do(t.Context(), v); err != nil {
					t.Errorf("request %d: %v", v, err)
				}
			})
		}
	}
	send(0) // fills the first call, which then waits for release
	deadline := time.Now().Add(10 * time.Second)
	for b.pendingCount() != 0 || !b.isRunning() {
		if time.Now().After(deadline) {
			t.Fatal("the first call never started")
		}
		runtime.Gosched()
	}
	send(3) // fills the next one while the first is under way
	for b.pendingCount() != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests pending, want 3", b.pendingCount())
		}
		runtime.Gosched()
	}
	start := time.Now()
	close(release)
	wg.Wait()
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the full second call waited %v", took)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 2 || len(calls[0]) != 3 || len(calls[1]) != 3 {
		t.Errorf("calls %v, want two of three", calls)
	}
}

// A caller whose context ends stops waiting; the flusher still answers
// into the item's buffered channel and ends.
func TestBatcherCallerGivesUp(t *testing.T) {
	release := make(chan struct{})
	flushed := make(chan struct{})
	b := newBatcher(0, 0, 1, func(_ context.Context, items []batchItem[int]) {
		<-release
		for _, it := range items {
			it.done <- nil
		}
		close(flushed)
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := b.do(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want the context's error", err)
	}
	close(release)
	<-flushed
}

// TestBatcherAnswersReachTheirOwnRequest checks that reusing done
// channels never hands one request another's answer: a request whose
// caller gave up is answered after later requests were answered, and
// each of those still gets its own outcome.
func TestBatcherAnswersReachTheirOwnRequest(t *testing.T) {
	release := make(chan struct{})
	b := newBatcher(0, 0, 1, func(_ context.Context, items []batchItem[int]) {
		for _, it := range items {
			if it.v == 0 {
				<-release // the abandoned request is answered late
			}
			it.done <- fmt.Errorf("answer %d", it.v)
		}
	})
	ctx, cancel := context.WithCancel(t.Context())
	gaveUp := make(chan error, 1)
	go func() { gaveUp <- b.do(ctx, 0) }()
	deadline := time.Now().Add(5 * time.Second)
	for b.pendingCount() != 0 || !b.isRunning() {
		if time.Now().After(deadline) {
			t.Fatal("the first request never reached the flush")
		}
		runtime.Gosched()
	}
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("abandoned request: got %v, want the context's error", err)
	}
	close(release)
	var got []string
	for v := 1; v <= 20; v++ {
		err := b.do(t.Context(), v)
		got = append(got, fmt.Sprint(err))
	}
	var want []string
	for v := 1; v <= 20; v++ {
		want = append(want, fmt.Sprintf("answer %d", v))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

// isRunning reports whether the batcher's flusher is under way.
func (b *batcher[T]) isRunning() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running
}

// BenchmarkBatcherWaves: 250 callers each send one request at a time
// through a batcher with the sender's default gathering (2ms window,
// 200µs gap), whose flush answers at once; what one request costs in
// CPU, and how many requests a call carries.
func BenchmarkBatcherWaves(b *testing.B) {
	const callers = 250
	var calls, items int
	bt := newBatcher(DefaultBatchWindow, batchGap, batchMost, func(_ context.Context, its []batchItem[int]) {
		calls++ // one flusher at a time
		items += len(its)
		for _, it := range its {
			it.done <- nil
		}
	})
	var next sync.WaitGroup
	per := b.N/callers + 1
	cpu0 := cpuTime()
	b.ResetTimer()
	for range callers {
		next.Go(func() {
			for i := range per {
				if err := bt.do(context.Background(), i); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	next.Wait()
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(per*callers), "cpu-ns/request")
	if calls > 0 {
		b.ReportMetric(float64(items)/float64(calls), "requests/call")
	}
}
