package servicebus

import (
	"context"
	"sync"
	"time"
)

// flushTimeout bounds one flush of a batcher, whatever the waiters' own
// contexts say: a send that has started is finished.
const flushTimeout = 30 * time.Second

// maxPending is how many waiting sends make a batcher flush before its
// window has passed.
const maxPending = 256

// batchItem is one request waiting for a batch call.
type batchItem[T any] struct {
	v    T
	done chan error
}

// batcher coalesces concurrent requests into one call: a partial batch
// goes when the window since its first request has passed, a batch of
// maxPending at once. It owns no goroutine between flushes; each flush
// runs on a timer's goroutine or on the caller that filled the batch.
type batcher[T any] struct {
	window time.Duration
	flush  func(ctx context.Context, items []batchItem[T])

	mu      sync.Mutex
	pending []batchItem[T]
	timer   *time.Timer
}

func newBatcher[T any](window time.Duration, flush func(ctx context.Context, items []batchItem[T])) *batcher[T] {
	return &batcher[T]{window: window, flush: flush}
}

// do queues one request and waits for its outcome or for ctx to end. A
// request whose caller stopped waiting may still be carried out.
func (b *batcher[T]) do(ctx context.Context, v T) error {
	it := batchItem[T]{v: v, done: make(chan error, 1)}
	b.mu.Lock()
	b.pending = append(b.pending, it)
	var full []batchItem[T]
	switch {
	case len(b.pending) >= maxPending:
		full = b.take()
	case len(b.pending) == 1:
		b.timer = time.AfterFunc(b.window, b.flushPending)
	}
	b.mu.Unlock()
	if full != nil {
		b.run(full)
	}
	select {
	case err := <-it.done:
		return err
	case <-ctx.Done():
		return classify("send", ctx.Err())
	}
}

// take empties the queue; b.mu is held.
func (b *batcher[T]) take() []batchItem[T] {
	items := b.pending
	b.pending = nil
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	return items
}

func (b *batcher[T]) flushPending() {
	b.mu.Lock()
	items := b.take()
	b.mu.Unlock()
	if len(items) > 0 {
		b.run(items)
	}
}

func (b *batcher[T]) run(items []batchItem[T]) {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	b.flush(ctx, items)
}
