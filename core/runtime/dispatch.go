package runtime

import (
	"context"
	"errors"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// dispatch resolves the destinations of env and sends it to each, recording
// failures and fan-out acceptances on the worker.
func (w *worker) dispatch(ctx context.Context, env *messaging.Envelope) {
	rn := w.rn
	plans, err := rn.resolver.Resolve(ctx, env)
	if err == nil && len(plans) == 0 {
		err = fault.ErrNotFound.WithMessage("resolver returned no destination")
	}
	if err != nil {
		w.failures = append(w.failures, dispatchFailure{err: err})
		return
	}
	if rn.single {
		plans = plans[:1]
	}
	if rn.outbox {
		w.persist(ctx, env, plans)
		return
	}
	fanOut := len(plans) > 1
	for _, p := range plans {
		b := rn.bindings[p.BindingID]
		if b == nil {
			w.failures = append(w.failures, dispatchFailure{bindingID: p.BindingID, address: p.Address,
				err: fault.ErrNotFound.WithMessage("resolver chose binding \"" + p.BindingID + "\", which is not on the route")})
			continue
		}
		addr := p.Address
		if addr == "" {
			addr = b.Address
		}
		dest := destination{binding: b.ID, address: addr}
		if fanOut && rn.attempts.active() && rn.attempts.sent(w.key(), dest) {
			// This destination accepted the message on an earlier attempt.
			continue
		}
		if err := w.sendMeasured(ctx, b, p, addr, env); err != nil {
			rn.m.sendError(b.ID, err).Add(1)
			w.failures = append(w.failures, dispatchFailure{bindingID: b.ID, address: addr, err: err})
			continue
		}
		if fanOut {
			w.accepted = append(w.accepted, dest)
		}
	}
}

// send transmits env through one binding within the route's send timeout.
// The address travels beside the envelope; the subject is never touched.
func (w *worker) send(ctx context.Context, b *Binding, p ports.DispatchPlan, addr string, env *messaging.Envelope) error {
	msg := ports.OutboundMessage{Envelope: outboundEnvelope(env, b, p), Address: addr}
	if ctx == w.baseCtx || (ctx == w.guarded && ctx.Err() == nil) {
		// The common cases: reuse the worker's guard (no allocation). A
		// guarded delivery context descends from the guard's, so the
		// watchdog's cancel reaches it.
		return w.guardedSend(ctx, b, msg)
	}
	sctx, cancel := context.WithTimeout(ctx, w.rn.policy.SendTimeout)
	err := b.Sender.Send(sctx, msg)
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		err = asTimeout(err, b.ID)
	}
	cancel()
	return err
}

// guardedSend sends msg under the worker's send guard. The guard is stopped
// in a deferred call so that a Sender that panics (whoever recovers the
// panic) cannot leave it armed, or its context cancelled, for the next send.
func (w *worker) guardedSend(ctx context.Context, b *Binding, msg ports.OutboundMessage) (err error) {
	defer func() {
		if w.guard.stop() && err != nil {
			err = asTimeout(err, b.ID)
		}
	}()
	gctx := w.guard.start(w.rn.coarseNow.Load())
	if ctx == w.baseCtx {
		ctx = gctx
	}
	return b.Sender.Send(ctx, msg)
}

// asTimeout classifies a send that overran send_timeout as TIMEOUT
// (transient) unless the sender already classified it.
func asTimeout(err error, binding string) error {
	if _, ok := fault.As(err); ok {
		return err
	}
	return fault.ErrTimeout.Wrap(err).With("binding", binding)
}

// dispatchError folds the failures of the last dispatch into the error that
// decides settlement: nil when every destination accepted, the first
// transient error when any failure may heal on retry, else the first
// failure.
func (w *worker) dispatchError() error {
	if len(w.failures) == 0 {
		return nil
	}
	return w.failures[w.decidingFailure()].err
}

// decidingFailure is the index of the failure dispatchError reports; there
// must be at least one failure.
func (w *worker) decidingFailure() int {
	for i, f := range w.failures {
		if fault.IsRecoverable(f.err) {
			return i
		}
	}
	return 0
}
