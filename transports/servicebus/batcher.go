package servicebus

import (
	"context"
	"sync"
	"time"
)

// flushTimeout bounds one flush of a batcher, whatever the waiters' own
// contexts say: a send that has started is finished.
const flushTimeout = 30 * time.Second

// Gathering limits of the sender's batcher.
const (
	// batchGap is how long a batcher waits for one more request before
	// it flushes. The sends of one wave (the deliveries of one receive,
	// handed to the route's workers together) arrive microseconds apart;
	// a pause this long means the wave is over.
	batchGap = 200 * time.Microsecond
	// batchMost stops the gathering: a call this large is worth sending
	// at once (the SDK still splits it into batches by size).
	batchMost = 1000
)

// batchItem is one request waiting for a batch call.
type batchItem[T any] struct {
	v    T
	done chan error
}

// batcher coalesces concurrent requests into shared calls. Before each
// call it gathers: it waits while requests keep arriving, until none has
// come for gap, or most are pending, or window has passed since it began
// to wait; requests that arrive while a call is under way go together in
// the next. With window 0 it does not wait (group commit only). The
// flusher goroutine is the batcher's own and ends as soon as nothing is
// pending.
type batcher[T any] struct {
	window, gap time.Duration
	most        int
	flush       func(ctx context.Context, items []batchItem[T])

	mu      sync.Mutex
	pending []batchItem[T]
	running bool
	last    time.Time     // when the latest request came
	full    chan struct{} // signalled (without blocking) when most are pending
	// dones keeps the done channels of answered requests for reuse: one
	// allocation less per request. A channel whose caller stopped waiting
	// is never put back, as its answer may still come.
	dones sync.Pool
}

// newBatcher returns a batcher whose flush receives the requests of one
// call in arrival order; it must answer every item's done once.
func newBatcher[T any](window, gap time.Duration, most int, flush func(ctx context.Context, items []batchItem[T])) *batcher[T] {
	return &batcher[T]{window: window, gap: min(gap, window), most: max(most, 1), flush: flush, full: make(chan struct{}, 1)}
}

// do queues one request and waits for its outcome or for ctx to end. A
// request whose caller stopped waiting may still be carried out.
func (b *batcher[T]) do(ctx context.Context, v T) error {
	done, _ := b.dones.Get().(chan error)
	if done == nil {
		done = make(chan error, 1)
	}
	it := batchItem[T]{v: v, done: done}
	now := time.Now()
	b.mu.Lock()
	b.pending = append(b.pending, it)
	b.last = now
	start := !b.running
	b.running = true
	full := len(b.pending) == b.most
	b.mu.Unlock()
	if full {
		select {
		case b.full <- struct{}{}:
		default:
		}
	}
	if start {
		go b.loop()
	}
	select {
	case err := <-it.done:
		b.dones.Put(done)
		return err
	case <-ctx.Done():
		return classify("send", ctx.Err())
	}
}

// loop gathers and flushes what is pending until nothing is.
func (b *batcher[T]) loop() {
	for {
		b.mu.Lock()
		if len(b.pending) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		b.gather()
		b.mu.Lock()
		items := b.pending
		b.pending = nil
		b.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		b.flush(ctx, items)
		cancel()
	}
}

func (b *batcher[T]) pendingCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}

// gather waits while requests keep coming: until none has come for gap,
// most are pending or window has passed. Rather than wake for each
// request, it looks when a gap could have ended, so that a wave of sends
// costs the flusher a timer tick or two instead of a wake-up a send.
func (b *batcher[T]) gather() {
	if b.window <= 0 {
		return
	}
	select {
	case <-b.full: // left from a wave already flushed
	default:
	}
	if b.pendingCount() >= b.most {
		return // gathered while the last call was under way
	}
	deadline := time.Now().Add(b.window)
	t := time.NewTimer(b.gap)
	defer t.Stop()
	for {
		select {
		case <-b.full:
			return
		case <-t.C:
		}
		b.mu.Lock()
		n, last := len(b.pending), b.last
		b.mu.Unlock()
		now := time.Now()
		quiet, left := now.Sub(last), deadline.Sub(now)
		if n >= b.most || quiet >= b.gap || left <= 0 {
			return
		}
		t.Reset(min(b.gap-quiet, left))
	}
}
