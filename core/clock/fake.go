package clock

import (
	"context"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// Fake is a clock that only moves when told to. Timers fire when Advance
// moves the time past their deadline. It is safe for concurrent use.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*fakeTimer
	changed chan struct{}
}

// NewFake returns a fake clock set to start.
func NewFake(start time.Time) *Fake {
	return &Fake{now: start, changed: make(chan struct{})}
}

// Now returns the fake's current time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// NewTimer returns a timer that fires when the clock reaches Now()+d.
func (f *Fake) NewTimer(d time.Duration) ports.Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{f: f, c: make(chan time.Time, 1)}
	f.arm(t, d)
	return t
}

// Advance moves the clock forward by d and fires every timer that is due.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	kept := f.timers[:0]
	for _, t := range f.timers {
		if !t.when.After(f.now) {
			t.armed = false
			select {
			case t.c <- f.now:
			default:
			}
			continue
		}
		kept = append(kept, t)
	}
	clear(f.timers[len(kept):])
	f.timers = kept
}

// WaitForTimers blocks until at least n timers are armed or ctx ends. Tests
// use it to know that code under test is waiting before they Advance.
func (f *Fake) WaitForTimers(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		armed, ch := len(f.timers), f.changed
		f.mu.Unlock()
		if armed >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// arm schedules t; f.mu must be held.
func (f *Fake) arm(t *fakeTimer, d time.Duration) {
	t.when = f.now.Add(d)
	if d <= 0 {
		select {
		case t.c <- f.now:
		default:
		}
		return
	}
	t.armed = true
	f.timers = append(f.timers, t)
	close(f.changed)
	f.changed = make(chan struct{})
}

// disarm removes t; f.mu must be held.
func (f *Fake) disarm(t *fakeTimer) bool {
	if !t.armed {
		return false
	}
	t.armed = false
	for i, x := range f.timers {
		if x == t {
			f.timers = append(f.timers[:i], f.timers[i+1:]...)
			break
		}
	}
	return true
}

type fakeTimer struct {
	f     *Fake
	c     chan time.Time
	when  time.Time
	armed bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

// Stop and Reset follow the timers of Go 1.23 and later, which System
// returns: a value that fired but was not received yet is discarded and
// counts as a stop, so no stale time is delivered after either returns.

func (t *fakeTimer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	stopped := t.f.disarm(t)
	drained := t.drain()
	return stopped || drained
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	stopped := t.f.disarm(t)
	drained := t.drain()
	t.f.arm(t, d)
	return stopped || drained
}

// drain discards a pending, unreceived fire; f.mu must be held.
func (t *fakeTimer) drain() bool {
	select {
	case <-t.c:
		return true
	default:
		return false
	}
}
