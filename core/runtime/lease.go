package runtime

import (
	"context"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// errLeaseLost cancels the work on a delivery whose lease could not be
// extended: the source hands the message to another consumer, so the
// bridge leaves it unsettled rather than finish a copy that is no longer
// its own.
var errLeaseLost = fault.ErrUnavailable.WithMessage("the source's lease on the message could not be extended")

// leaseKeeper extends the lease of one leased delivery (ports.Leased)
// while a worker handles it: when a third of the lease is left, it asks
// for a whole lease more. It owns one goroutine, which stop ends.
type leaseKeeper struct {
	w      *worker
	d      ports.Delivery
	period time.Duration
	cancel context.CancelCauseFunc
	quit   chan struct{}
	done   sync.WaitGroup
}

// keepLease starts keeping d's lease when d is leased, and returns the
// context to handle d under (cancelled with errLeaseLost when an
// extension fails) and the function that stops the keeper. stop must run
// before d is settled: it waits for an extension in progress, so Extend is
// never called after settlement.
func (w *worker) keepLease(parent context.Context, d ports.Delivery) (context.Context, func()) {
	l, ok := d.(ports.Leased)
	if !ok {
		return parent, nil
	}
	until := l.LeaseUntil()
	period := until.Sub(w.rn.opts.Clock.Now())
	if until.IsZero() || period <= 0 {
		return parent, nil
	}
	ctx, cancel := context.WithCancelCause(parent)
	k := &leaseKeeper{w: w, d: d, period: period, cancel: cancel, quit: make(chan struct{})}
	k.done.Add(1)
	go k.run(until)
	return ctx, k.stop
}

// run extends the lease each time a third of it is left, until stop or a
// failed extension.
func (k *leaseKeeper) run(until time.Time) {
	defer k.done.Done()
	rn := k.w.rn
	clk := rn.opts.Clock
	for {
		t := clk.NewTimer(max(until.Sub(clk.Now())-k.period/3, 0))
		select {
		case <-k.quit:
			t.Stop()
			return
		case <-t.C():
		}
		next := clk.Now().Add(k.period)
		// The call gets what is left of the lease: past it, extending no
		// longer helps.
		ctx, cancel := context.WithTimeout(context.Background(), max(until.Sub(clk.Now()), k.period/3))
		err := k.d.Extend(ctx, next)
		cancel()
		if err != nil {
			rn.m.leaseLost.Add(1)
			rn.log.Warn("lease extension failed; stopping work on the message and leaving it to its source",
				"message_id", k.w.origID, "err", err)
			k.cancel(errLeaseLost)
			return
		}
		rn.m.leaseExtended.Add(1)
		until = next
	}
}

// stop ends the keeper and waits for an extension in progress.
func (k *leaseKeeper) stop() {
	close(k.quit)
	k.done.Wait()
	k.cancel(nil)
}
