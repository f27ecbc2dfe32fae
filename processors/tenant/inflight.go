package tenant

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// checkQuota enforces the in-flight ceiling when the tracker can report
// usage and the validator gave a positive ceiling. Reading usage and
// adding to it are two calls, so deliveries admitted at the same moment
// can each see room and pass together: the ceiling can be exceeded by up to
// the number of admissions in progress at once, across every route and
// process sharing the tracker. A failed read lets the message through.
func (p *Processor) checkQuota(ctx context.Context, id string, info TenantInfo) error {
	if p.reader == nil || info.MaxInFlight <= 0 {
		return nil
	}
	u, err := p.reader.Usage(ctx, id)
	if err != nil {
		p.usageFailed(ctx, opRead, id, err)
		return nil
	}
	if u.InFlight >= info.MaxInFlight {
		p.inst.rejected(ReasonQuotaInFlight)
		return fault.ErrTenantQuotaExceeded.
			WithMessage(fmt.Sprintf("tenant %q has %d deliveries in flight, ceiling %d", id, u.InFlight, info.MaxInFlight)).
			With("processor", p.cfg.Name).With("tenant", id).With("reason", ReasonQuotaInFlight).
			With("max_in_flight", info.MaxInFlight)
	}
	return nil
}

// tracked counts the delivery in flight, calls next, and arranges for the
// count to be released exactly once: when the runtime settles the delivery
// if ctx carries a settlement scope, otherwise when this call returns
// (also when next panics).
func (p *Processor) tracked(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc, id string) (err error) {
	if ierr := p.tracker.IncrementInFlight(ctx, id); ierr != nil {
		// Nothing was added, so there is nothing to release.
		p.usageFailed(ctx, opIncrement, id, ierr)
		return next(ctx, env)
	}
	r := &release{p: p, id: id, ctx: ctx}
	if ports.OnSettled(ctx, r.settled) {
		return next(ctx, env)
	}
	returned := false
	defer func() { r.finish(returned && err == nil) }()
	err = next(ctx, env)
	returned = true
	return err
}

// release undoes one in-flight increment.
type release struct {
	p    *Processor
	id   string
	ctx  context.Context // the delivery's context; it may be cancelled by now
	done atomic.Bool
}

// settled is the settlement hook: the delivery succeeded when it ended for
// good without an error.
func (r *release) settled(st ports.Settlement) {
	r.finish(st.Outcome == ports.SettledAcked && st.Terminal && st.Err == nil)
}

// finish decrements the in-flight count and, on success, counts a
// processed message. Only the first call has an effect. The tracker calls
// get the delivery's context values without its cancellation, bounded by
// InFlightDecrementTimeout; they run on the caller's goroutine, so a slow
// tracker holds the route's worker for at most that long. The in-memory
// tracker neither blocks nor reads the context, so it is called without
// building one.
func (r *release) finish(success bool) {
	if !r.done.CompareAndSwap(false, true) {
		return
	}
	p := r.p
	ctx := r.ctx
	if !p.inMemory {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), p.cfg.InFlightDecrementTimeout)
		defer cancel()
	}
	// Count the message before freeing its slot, so that whoever sees the
	// slot free also sees the message counted.
	if success {
		if err := p.tracker.IncrementProcessed(ctx, r.id); err != nil {
			p.usageFailed(ctx, opProcessed, r.id, err)
		}
	}
	if err := p.tracker.DecrementInFlight(ctx, r.id); err != nil {
		p.usageFailed(ctx, opDecrement, r.id, err)
	}
}
