package sqs

import (
	"context"
	"sync"
	"time"
)

// flushTimeout bounds one flush of a batcher, whatever the waiters' own
// contexts say: a delete or an extension that has started is finished.
const flushTimeout = 30 * time.Second

// flusherIdle is how long a flusher goroutine waits for work before it
// ends.
const flusherIdle = 10 * time.Second

// receipt is a request about one received message.
type receipt struct {
	handle string
	vis    int32 // seconds, for visibility changes
}

// batch is one call's worth of requests. Its waiters share one channel,
// closed once every outcome is in errs (index-aligned with items).
type batch[T any] struct {
	items []T
	errs  []error
	done  chan struct{}
	timer *time.Timer // sends a partial batch when the window has passed
}

// batcher coalesces requests into calls of at most maxBatch entries: a
// full batch goes at once, a partial one when the window since its first
// request has passed.
//
// Flushes run on long-lived flusher goroutines, most recently idle
// first, rather than on whichever caller filled the batch: an SDK call
// grows its goroutine's stack to tens of KiB, and a goroutine that keeps
// making such calls keeps that stack (withStackReserve) instead of
// growing a fresh one for each. A flusher ends after flusherIdle without
// work, or at close; a closed batcher flushes on the caller (or timer)
// goroutine instead, so a request never waits for a flusher that is gone.
type batcher[T any] struct {
	window time.Duration
	// flush carries out items and records each one's outcome in errs.
	flush func(ctx context.Context, items []T, errs []error)

	mu     sync.Mutex
	cur    *batch[T]
	idle   []*flusher[T] // a stack: the last one in is the first out
	closed bool
	stop   chan struct{}
}

// flusher is one flusher goroutine's mailbox.
type flusher[T any] struct {
	work chan *batch[T]
}

func newBatcher[T any](window time.Duration, flush func(ctx context.Context, items []T, errs []error)) *batcher[T] {
	return &batcher[T]{window: window, flush: flush, stop: make(chan struct{})}
}

// do queues one request and waits for its outcome or for ctx to end. A
// request whose caller stopped waiting is still carried out.
func (b *batcher[T]) do(ctx context.Context, v T) error {
	b.mu.Lock()
	bt := b.cur
	if bt == nil {
		bt = &batch[T]{items: make([]T, 0, maxBatch), done: make(chan struct{})}
		b.cur = bt
		bt.timer = time.AfterFunc(b.window, func() { b.flushPartial(bt) })
	}
	i := len(bt.items)
	bt.items = append(bt.items, v)
	full := len(bt.items) >= maxBatch
	if full {
		b.cur = nil
		bt.timer.Stop()
	}
	inline := full && b.dispatchLocked(bt)
	b.mu.Unlock()
	if inline {
		b.run(bt)
	}
	select {
	case <-bt.done:
		return bt.errs[i]
	case <-ctx.Done():
		return ctx.Err()
	}
}

// flushPartial sends bt when its window has passed, unless it filled up
// and went already.
func (b *batcher[T]) flushPartial(bt *batch[T]) {
	b.mu.Lock()
	if b.cur != bt {
		b.mu.Unlock()
		return
	}
	b.cur = nil
	inline := b.dispatchLocked(bt)
	b.mu.Unlock()
	if inline {
		b.run(bt)
	}
}

// dispatchLocked hands bt to the most recently idle flusher, starting
// one when none is idle. It reports false when the batcher is closed: the
// caller then runs bt itself. b.mu is held.
func (b *batcher[T]) dispatchLocked(bt *batch[T]) bool {
	if b.closed {
		return true
	}
	if n := len(b.idle); n > 0 {
		f := b.idle[n-1]
		b.idle[n-1] = nil
		b.idle = b.idle[:n-1]
		f.work <- bt // buffered, and f takes nothing else while busy
		return false
	}
	f := &flusher[T]{work: make(chan *batch[T], 1)}
	f.work <- bt
	go withStackReserve(func() { b.serve(f) })
	return false
}

// serve runs the batches handed to f until f has been idle for
// flusherIdle or the batcher closes.
func (b *batcher[T]) serve(f *flusher[T]) {
	t := time.NewTimer(flusherIdle)
	defer t.Stop()
	for {
		select {
		case bt := <-f.work:
			b.run(bt)
			b.mu.Lock()
			if b.closed {
				b.mu.Unlock()
				return
			}
			b.idle = append(b.idle, f)
			b.mu.Unlock()
			t.Reset(flusherIdle)
		case <-t.C:
			if b.retire(f) {
				return
			}
		case <-b.stop:
			// close took f off the idle stack; a batch handed to f
			// before that is still run.
			select {
			case bt := <-f.work:
				b.run(bt)
			default:
			}
			return
		}
	}
}

// retire takes f off the idle stack and reports true, or reports false
// when a batch was handed to f in the meantime.
func (b *batcher[T]) retire(f *flusher[T]) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, g := range b.idle {
		if g == f {
			b.idle = append(b.idle[:i], b.idle[i+1:]...)
			return true
		}
	}
	return false
}

// close makes the flusher goroutines end, each once its batch is done
// (close does not wait for that, as a flush on the caller would not be
// waited for either); later batches flush on the goroutine that
// completes them.
func (b *batcher[T]) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		b.idle = nil
		close(b.stop)
	}
}

// run flushes bt and releases its waiters.
func (b *batcher[T]) run(bt *batch[T]) {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	bt.errs = make([]error, len(bt.items))
	b.flush(ctx, bt.items, bt.errs)
	close(bt.done)
}
