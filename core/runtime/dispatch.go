package runtime

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// dispatch resolves the destinations of env and sends it to each, recording
// failures and fan-out acceptances on the worker.
func (w *worker) dispatch(ctx context.Context, env *messaging.Envelope) {
	rn := w.rn
	plans, err := rn.fixed, error(nil)
	if plans == nil {
		plans, err = rn.resolver.Resolve(ctx, env)
	}
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
		b := rn.binding(p.BindingID)
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
		if rn.fenced() {
			// Neither this destination nor the next: settle sees the fence
			// too and leaves the delivery with its source.
			w.failures = append(w.failures, dispatchFailure{bindingID: b.ID, address: addr, err: errFenced})
			return
		}
		start := rn.sendStart()
		var err error
		if rn.traced {
			err = w.tracedSend(ctx, b, p, addr, env)
		} else {
			err = w.send(ctx, b, p, addr, env)
		}
		rn.sendEnd(b.ID, start, err, w.traceID)
		if err != nil {
			rn.m.sendError(b.ID, err).Add(1)
			w.failures = append(w.failures, dispatchFailure{bindingID: b.ID, address: addr, err: err})
			continue
		}
		if fanOut {
			w.accepted = append(w.accepted, dest)
		}
	}
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
