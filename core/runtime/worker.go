package runtime

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// worker handles one delivery at a time. It owns a processor chain built
// once, whose innermost layer dispatches through this worker, so handling a
// message allocates no closures.
type worker struct {
	rn    *runner
	chain ports.ProcessorFunc
	guard *sendGuard
	// baseCtx is the route's work context carrying this worker's
	// settlement scope, built once and passed down the chain.
	baseCtx context.Context
	scope   ports.SettleScope
	// guarded is the context of the delivery in hand when it derives from
	// the send guard's context (abandonable deliveries), else nil.
	guarded context.Context
	// leaseCtx is the context leased deliveries are handled under, reused
	// until cancelled (see leaseContext); leaseBase is the cancellable
	// context it wraps, and leaseFrom the send guard's context it
	// derives from.
	leaseCtx    context.Context
	leaseBase   context.Context
	leaseCancel context.CancelCauseFunc
	leaseFrom   *guardCtx
	held        heldLease // the lease of the delivery in hand (see keepLease)

	// Per-delivery state, reset by handle.
	d           ports.Delivery
	outcome     ports.Settlement // how settle ended the delivery
	dispatched  bool
	uncounted   bool              // the failure was the outbox's (full, slow), not the message's
	interrupted bool              // a dispatch began and has not returned (a panic)
	failures    []dispatchFailure // failed destinations of the last dispatch
	accepted    []destination     // fan-out destinations that accepted
	origID      string            // the message ID as received
	tk          trackKey          // the attempt tracker's key, once keyed
	keyed       bool              // tk is computed (see key)
	origSubj    string            // subject and payload as received, for
	origBody    []byte            // the DLQ (payloads are immutable)
	span        telemetry.Span    // the receive span (traced routes only)
	sendCtx     valuesCtx         // a traced send's context (see guardedSend)
	traceID     string            // the sampled trace of the delivery, for exemplars
}

// dispatchFailure is one destination that refused the message.
type dispatchFailure struct {
	bindingID, address string
	err                error
}

func newWorker(rn *runner) *worker {
	w := &worker{rn: rn, guard: newSendGuard(rn.workCtx)}
	w.baseCtx = ports.WithSettleScope(rn.workCtx, &w.scope)
	next := ports.ProcessorFunc(w.dispatchLayer)
	for i := len(rn.route.Processors) - 1; i >= 0; i-- {
		p, inner := rn.route.Processors[i], next
		if rn.traced {
			next = rn.tracedProcessor(i, p, inner)
			continue
		}
		next = func(ctx context.Context, env *messaging.Envelope) error {
			return p.Process(ctx, env, inner)
		}
	}
	w.chain = next
	return w
}

// loop handles first, then whatever arrives until the route stops.
func (w *worker) loop(first ports.Delivery) {
	defer w.rn.workers.Done()
	defer w.guard.close()
	w.handle(first)
	for d := range w.rn.work {
		w.handle(d)
	}
}

// handle takes one delivery from hand-over to settlement.
func (w *worker) handle(d ports.Delivery) {
	rn := w.rn
	var start time.Time
	if rn.timed {
		start = rn.opts.Clock.Now()
	}
	if rn.timed {
		// A no-op meter needs no calls.
		rn.m.received.Add(1)
		rn.m.inFlight.Add(1)
		defer rn.m.inFlight.Add(-1)
	}

	ctx, base := w.baseCtx, true
	if ac, ok := d.(ports.AbandonContexter); ok {
		// Derive from the send guard's context, so that the guard's
		// watchdog can time out this delivery's sends without a timer per
		// message (see send).
		var cancel context.CancelFunc
		ctx, cancel = followContext(w.guard.current(), ac.AbandonContext())
		ctx, base = ports.WithSettleScope(ctx, &w.scope), false
		w.guarded = ctx
		defer func() {
			cancel()
			w.guarded = nil
		}()
	} else if ab, ok := d.(ports.Abandoner); ok {
		var cancel context.CancelFunc
		ctx, cancel = abandonable(ctx, ab.Abandoned())
		base = false
		defer cancel()
	}

	env := d.Envelope()
	w.prepare(env)
	ctx, held := w.keepLease(ctx, d, base)
	if rn.traced {
		ctx, w.span = w.startReceive(ctx, env)
		if rn.timed {
			w.traceID = telemetry.TraceIDOf(w.span)
		}
	}
	err := w.process(ctx, d, env)
	w.releaseLease(held) // no extension may run once settling begins
	w.outcome = ports.Settlement{Outcome: ports.SettledUnsettled, Err: err}
	if rn.traced {
		w.tracedSettle(ctx, d, env, err)
	} else {
		w.settleSafely(ctx, d, env, err)
	}
	w.scope.Fire(w.outcome)
	if so, ok := d.(ports.SettleObserver); ok {
		so.Settled(w.outcome)
	}
	if w.span != nil {
		w.span.SetAttributes(telemetry.String(attrOutcome, string(w.outcome.Outcome)))
		endWithFault(w.span, err)
		w.span = nil
	}
	if rn.timed {
		w.observeHandled(env, err, start)
	}
	w.d, w.failures, w.accepted, w.traceID = nil, w.failures[:0], w.accepted[:0], ""
}

// settleSafely settles d and survives a panic in the source's Ack or Retry
// or in the DLQ store: the delivery is then left as it is (the source
// redelivers what it did not record as settled) and the worker lives on.
func (w *worker) settleSafely(ctx context.Context, d ports.Delivery, env *messaging.Envelope, err error) {
	defer func() {
		if p := recover(); p != nil {
			w.rn.m.settleErr.Add(1)
			w.rn.log.Error("settlement panicked; leaving the delivery to its source",
				"message_id", w.origID, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	w.settle(ctx, d, env, err)
}

// prepare applies the ingress header rules: strip reserved names, then set
// the correlation, route and source headers.
func (w *worker) prepare(env *messaging.Envelope) {
	ensureHeaders(env)
	trust := w.rn.route.TrustBridgeHeaders
	messaging.StripIngress(env.Headers, trust)
	// Without trust, stripping removed every x-bridge.* header, the
	// correlation ID among them: only a trusted upstream's can be left.
	if !trust || !hasHeader(env.Headers, messaging.HeaderCorrelationID) {
		// A message that starts a conversation is correlated by its own ID.
		id := env.ID
		if id == "" {
			id = messaging.NewID()
		}
		env.Headers[messaging.HeaderCorrelationID] = id
	}
	env.Headers[messaging.HeaderRouteID] = w.rn.routeIDValue
	env.Headers[messaging.HeaderSourceID] = w.rn.sourceIDValue
	w.origID, w.origSubj, w.origBody = env.ID, env.Subject, env.PayloadView()
	w.keyed = false
}

// hasHeader reports whether h holds name, whatever its value.
func hasHeader(h map[string]any, name string) bool {
	_, ok := h[name]
	return ok
}

// process runs the expiry check, the processor chain and the dispatch. It
// returns the error that decides settlement: the dispatch outcome when a
// dispatch happened, the chain's error otherwise.
func (w *worker) process(ctx context.Context, d ports.Delivery, env *messaging.Envelope) (err error) {
	w.d, w.dispatched, w.interrupted, w.uncounted = d, false, false, false
	if env.HasExpiry() && env.IsExpired(w.rn.opts.Clock.Now()) {
		return fault.ErrMessageExpired
	}
	defer func() {
		if p := recover(); p != nil {
			w.rn.log.Error("processor panicked", "panic", p, "stack", string(debug.Stack()))
			err = fault.NewWithClass(fault.ClassPermanent, fault.CodeInternal, fmt.Sprintf("processor panicked: %v", p))
			if w.dispatched {
				// The panic, not the failures recorded so far (which may
				// all be transient), decides the outcome: record it so
				// that the DLQ gets an entry for it.
				w.failures = append(w.failures, dispatchFailure{err: err})
			}
		}
	}()
	err = w.chain(ctx, env)
	if !w.dispatched && err == nil {
		// A processor that returns without calling next still lets the
		// message through.
		err = w.dispatchLayer(ctx, env)
	}
	if w.interrupted {
		// A panic cut the dispatch short and a processor recovered it:
		// the destinations after the failing one never got the message.
		if err == nil {
			err = errDispatchInterrupted
		}
		w.failures = append(w.failures, dispatchFailure{err: err})
	}
	if w.dispatched {
		if derr := w.dispatchError(); derr != nil || err == nil {
			return derr
		}
		// Every destination accepted; an error raised on the way out
		// cannot undo the delivery, so the message is acknowledged.
		w.rn.log.Warn("processor failed after a successful dispatch; acknowledging", "err", err, "message_id", env.ID)
		return nil
	}
	return err
}

// dispatchLayer is the innermost layer of the chain.
func (w *worker) dispatchLayer(ctx context.Context, env *messaging.Envelope) error {
	w.dispatched, w.interrupted = true, true
	w.failures = w.failures[:0]
	w.accepted = w.accepted[:0]
	if w.rn.traced {
		var sp telemetry.Span
		ctx, sp = w.rn.tracer.Start(ctx, spanDispatch, telemetry.StartOptions{})
		defer func() { sp.End(w.dispatchError()) }()
	}
	w.dispatch(ctx, env)
	w.interrupted = false
	return w.dispatchError()
}

// errDispatchInterrupted settles a message whose dispatch a panic cut short
// when the processor that recovered the panic returned no error.
var errDispatchInterrupted = fault.NewWithClass(fault.ClassPermanent, fault.CodeInternal, "dispatch interrupted by a panic")

// followContext derives a context that is also cancelled when src ends,
// without a goroutine unless src actually ends.
func followContext(parent, src context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	stop := context.AfterFunc(src, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}

// abandonable derives a context that is also cancelled when abandoned
// closes. The returned cancel must be called to release the watcher.
func abandonable(parent context.Context, abandoned <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		select {
		case <-abandoned:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
