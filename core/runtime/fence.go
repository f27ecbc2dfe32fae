package runtime

import (
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// fencePoll is how often a worker holding a fenced delivery looks whether
// the fence holds again.
const fencePoll = 50 * time.Millisecond

// errFenced fails a direct send that the fence stopped.
var errFenced = fault.ErrUnavailable.WithMessage("this instance no longer holds the route's lease")

// fenced reports whether Options.Fence forbids sending and settling now.
func (rn *runner) fenced() bool { return rn.opts.Fence != nil && !rn.opts.Fence() }

// holdWhileFenced keeps the worker, and so its in-flight slot, after it
// left a delivery with its source for a lost lease, until the fence holds
// again or intake stops (the route is stopping, as it does when its lease
// term ends). A source that offers an unsettled delivery again at once
// would otherwise go round with it as fast as the route fences it; held,
// the route takes at most its in-flight limit until then.
func (w *worker) holdWhileFenced() {
	rn := w.rn
	intake := rn.intakeCtx()
	t := time.NewTicker(fencePoll)
	defer t.Stop()
	for rn.fenced() {
		select {
		case <-rn.intakeDone:
			return
		case <-intake.Done():
			return
		case <-t.C:
		}
	}
}
