package sqs

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// recordingBatcher returns a batcher whose flush records each call's
// items and fails the items equal to bad.
func recordingBatcher(window time.Duration, bad int) (*batcher[int], func() [][]int) {
	var mu sync.Mutex
	var calls [][]int
	b := newBatcher(window, func(_ context.Context, items []int, errs []error) {
		mu.Lock()
		calls = append(calls, append([]int(nil), items...))
		mu.Unlock()
		for i, v := range items {
			if v == bad {
				errs[i] = errors.New("bad")
			}
		}
	})
	return b, func() [][]int {
		mu.Lock()
		defer mu.Unlock()
		return append([][]int(nil), calls...)
	}
}

// idleFlushers returns how many flusher goroutines wait for work.
func idleFlushers[T any](b *batcher[T]) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.idle)
}

func TestBatcherOutcomesAndBatchSizes(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		wantSizes []int
	}{
		{"one full batch", 10, []int{10}},
		{"a full batch and a partial one", 13, []int{10, 3}},
		{"a partial batch after the window", 4, []int{4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, calls := recordingBatcher(300*time.Millisecond, 2)
			defer b.close()
			errs := make([]error, tt.n)
			var wg sync.WaitGroup
			for i := range tt.n {
				wg.Go(func() { errs[i] = b.do(t.Context(), i) })
				if i == 9 {
					wg.Wait() // the first ten fill one batch
				}
			}
			wg.Wait()
			for i, err := range errs {
				if (err != nil) != (i == 2) {
					t.Errorf("item %d: err %v", i, err)
				}
			}
			var sizes []int
			for _, c := range calls() {
				sizes = append(sizes, len(c))
			}
			if diff := cmp.Diff(tt.wantSizes, sizes); diff != "" {
				t.Errorf("batch sizes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBatcherReusesOneFlusher: batches that come one after another are
// flushed by the same long-lived goroutine, not one each.
func TestBatcherReusesOneFlusher(t *testing.T) {
	b, _ := recordingBatcher(time.Hour, -1)
	defer b.close()
	full := func() {
		var wg sync.WaitGroup
		for i := range maxBatch {
			wg.Go(func() {
				if err := b.do(t.Context(), i); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	waitIdle := func(want int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for idleFlushers(b) != want {
			if time.Now().After(deadline) {
				t.Fatalf("%d idle flushers, want %d", idleFlushers(b), want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	for range 5 {
		full()
		waitIdle(1)
	}
}

// TestBatcherAfterCloseFlushesOnCaller: a closed batcher has no flusher
// goroutines left and still carries out requests.
func TestBatcherAfterCloseFlushesOnCaller(t *testing.T) {
	b, calls := recordingBatcher(5*time.Millisecond, -1)
	var wg sync.WaitGroup
	for i := range maxBatch {
		wg.Go(func() { _ = b.do(t.Context(), i) })
	}
	wg.Wait()
	b.close()
	if n := idleFlushers(b); n != 0 {
		t.Fatalf("%d idle flushers after close", n)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := b.do(ctx, 99); err != nil {
		t.Fatalf("do after close: %v", err)
	}
	if got := calls(); len(got) != 2 || !cmp.Equal(got[1], []int{99}) {
		t.Fatalf("calls %v, want a second one with 99", got)
	}
}

// TestBatcherCallerThatStopsWaitingStillGetsItsRequestDone: the
// request of a caller whose context ended goes out with its batch.
func TestBatcherCallerThatStopsWaitingStillGetsItsRequestDone(t *testing.T) {
	b, calls := recordingBatcher(20*time.Millisecond, -1)
	defer b.close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := b.do(ctx, 7); !errors.Is(err, context.Canceled) {
		t.Fatalf("do with an ended context: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(calls()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the request was dropped")
		}
		time.Sleep(time.Millisecond)
	}
	if diff := cmp.Diff([][]int{{7}}, calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}
