package runtime

import (
	"context"
	"sync/atomic"
	"time"
)

// sendGuard bounds a worker's Send calls with the route's send timeout
// without a context or timer per message. The worker stamps the start of
// each send with the runner's coarse clock; the runner's watchdog (see
// watchdog.go) cancels the guard's context when a stamp is overdue. Only
// after a timeout fired is the context replaced, so the common path costs
// two atomic operations and no allocation.
//
// The guarded context has no Deadline, only cancellation; its cause is
// context.DeadlineExceeded when the timeout fired.
type sendGuard struct {
	parent context.Context
	cur    atomic.Pointer[guardCtx]
	// started holds the coarse start time of the send in progress, 0 when
	// idle, and -1 once the watchdog claimed it as timed out.
	started atomic.Int64
	fired   chan struct{} // receives once per timeout, after the cancel
}

type guardCtx struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func newSendGuard(parent context.Context) *sendGuard {
	g := &sendGuard{parent: parent, fired: make(chan struct{}, 1)}
	g.renew()
	return g
}

// current returns the context sends are guarded with until a timeout
// fires; contexts derived from it are cancelled by that timeout too.
func (g *sendGuard) current() context.Context { return g.cur.Load().ctx }

// start marks a send as begun at now (coarse nanoseconds, never 0) and
// returns the context to send with.
func (g *sendGuard) start(now int64) context.Context {
	g.started.Store(now)
	return g.cur.Load().ctx
}

// stop marks the send as finished and reports whether it timed out. When it
// did, the cancelled context is replaced for the next send.
func (g *sendGuard) stop() bool {
	if g.started.Swap(0) != -1 {
		return false
	}
	<-g.fired // the watchdog has finished with the old context
	g.renew()
	return true
}

// expireIfOverdue is called by the watchdog: it cancels the send in
// progress when it started at least timeout before now.
func (g *sendGuard) expireIfOverdue(now int64, timeout time.Duration) {
	s := g.started.Load()
	if s <= 0 || now-s < int64(timeout) || !g.started.CompareAndSwap(s, -1) {
		return
	}
	g.cur.Load().cancel(context.DeadlineExceeded)
	g.fired <- struct{}{}
}

// close releases the guard's context; the worker is exiting.
func (g *sendGuard) close() { g.cur.Load().cancel(context.Canceled) }

func (g *sendGuard) renew() {
	ctx, cancel := context.WithCancelCause(g.parent)
	if old := g.cur.Swap(&guardCtx{ctx: ctx, cancel: cancel}); old != nil {
		old.cancel(context.Canceled)
	}
}
