package runtime

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// Inline handling serves receivers whose capabilities say CallerWaits: the
// goroutine that calls emit would only wait for the settlement, so it
// handles the delivery itself with a worker borrowed from the route's idle
// list. The in-flight limit still holds, because at most MaxInFlight
// workers exist and each serves one delivery at a time.

// emitInline handles d on the caller's goroutine and returns once it is
// settled. An error means the route did not take d.
func (rn *runner) emitInline(ctx context.Context, d ports.Delivery) error {
	w, err := rn.acquire(ctx)
	if err != nil {
		return err
	}
	defer rn.workers.Done()
	w.handle(d)
	rn.idle <- w // never blocks: the list can hold every worker there is
	return nil
}

// acquire returns an idle worker, creating one while the route has fewer
// than MaxInFlight, or waits for one. On success the worker is counted in
// rn.workers until the caller's Done.
func (rn *runner) acquire(ctx context.Context) (*worker, error) {
	rn.mu.Lock()
	if rn.stopping {
		rn.mu.Unlock()
		return nil, errStopping
	}
	rn.workers.Add(1)
	var w *worker
	select {
	case w = <-rn.idle:
	default:
		if len(rn.pool) < rn.policy.MaxInFlight {
			w = newWorker(rn)
			rn.pool = append(rn.pool, w)
			rn.poolSize.Store(int32(len(rn.pool)))
		}
	}
	rn.mu.Unlock()
	if w != nil {
		return w, nil
	}
	select {
	case w = <-rn.idle:
		return w, nil
	case <-ctx.Done():
		rn.workers.Done()
		return nil, ctx.Err()
	case <-rn.intakeDone:
		rn.workers.Done()
		return nil, errStopping
	}
}

// closeInline releases the send guards of inline workers once no delivery
// can be in progress.
func (rn *runner) closeInline() {
	if rn.idle == nil {
		return
	}
	rn.mu.Lock()
	defer rn.mu.Unlock()
	for _, w := range rn.pool {
		w.guard.close()
	}
}
