package servicebus

import (
	"context"
	"sync"
	"time"
)

// flushTimeout bounds one flush of a batcher, whatever the waiters' own
// contexts say: a send that has started is finished.
const flushTimeout = 30 * time.Second

// batchItem is one request waiting for a batch call.
type batchItem[T any] struct {
	v    T
	done chan error
}

// batcher coalesces concurrent requests into shared calls, group-commit
// style: the first request starts a flusher at once (after window, when
// set); requests that arrive while a call is under way wait and go
// together in the next one. So a lone request pays no wait, and under
// load the calls grow with the load. The flusher goroutine is the
// batcher's own and ends as soon as nothing is pending.
type batcher[T any] struct {
	window time.Duration
	flush  func(ctx context.Context, items []batchItem[T])

	mu      sync.Mutex
	pending []batchItem[T]
	running bool
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
	start := !b.running
	b.running = true
	b.mu.Unlock()
	if start {
		go b.loop()
	}
	select {
	case err := <-it.done:
		return err
	case <-ctx.Done():
		return classify("send", ctx.Err())
	}
}

// loop flushes what is pending until nothing is.
func (b *batcher[T]) loop() {
	if b.window > 0 {
		time.Sleep(b.window)
	}
	for {
		b.mu.Lock()
		items := b.pending
		b.pending = nil
		if len(items) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		b.flush(ctx, items)
		cancel()
	}
}
