package sqs

import (
	"context"
	"sync"
	"time"
)

// flushTimeout bounds one flush of a batcher, whatever the waiters' own
// contexts say: a delete or an extension that has started is finished.
const flushTimeout = 30 * time.Second

// batchItem is one request waiting for a batch call.
type batchItem struct {
	handle string
	vis    int32 // seconds, for visibility changes
	done   chan error
}

// batcher coalesces requests into calls of at most maxBatch entries: a
// full batch goes at once, a partial one when the window since its first
// request has passed. It owns no goroutine between flushes; each flush
// runs on a timer's goroutine or on the caller that filled the batch.
type batcher struct {
	window time.Duration
	flush  func(ctx context.Context, items []batchItem)

	mu      sync.Mutex
	pending []batchItem
	timer   *time.Timer
}

func newBatcher(window time.Duration, flush func(ctx context.Context, items []batchItem)) *batcher {
	return &batcher{window: window, flush: flush}
}

// do queues one request and waits for its outcome or for ctx to end. A
// request whose caller stopped waiting is still carried out.
func (b *batcher) do(ctx context.Context, handle string, vis int32) error {
	it := batchItem{handle: handle, vis: vis, done: make(chan error, 1)}
	b.mu.Lock()
	b.pending = append(b.pending, it)
	var full []batchItem
	switch {
	case len(b.pending) >= maxBatch:
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
		return ctx.Err()
	}
}

// take empties the queue; b.mu is held.
func (b *batcher) take() []batchItem {
	items := b.pending
	b.pending = nil
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	return items
}

func (b *batcher) flushPending() {
	b.mu.Lock()
	items := b.take()
	b.mu.Unlock()
	if len(items) > 0 {
		b.run(items)
	}
}

func (b *batcher) run(items []batchItem) {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	b.flush(ctx, items)
}
