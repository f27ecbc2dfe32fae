package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// The send path of both delivery modes: a worker sends a delivery to its
// bindings (direct_hold) through send; a drainer sends claimed records
// through safeSend or safeSendBatch. Metrics only observe these calls
// (sendStart, sendEnd in metrics.go); they never make them.

// send transmits env through one binding within the route's send timeout.
// The address travels beside the envelope; the subject is never touched.
func (w *worker) send(ctx context.Context, b *Binding, p ports.DispatchPlan, addr string, env *messaging.Envelope) error {
	out := outboundEnvelope(env, b, p)
	if w.rn.traced {
		out = w.rn.withTrace(ctx, out, out == env)
	}
	msg := ports.OutboundMessage{Envelope: out, Address: addr, NotBefore: b.notBefore()}
	if base := w.isBase(ctx); base || (w.guarded != nil && w.isGuarded(ctx) && ctx.Err() == nil) {
		// The common cases: reuse the worker's guard (no allocation). A
		// guarded delivery context descends from the guard's, so the
		// watchdog's cancel reaches it.
		return w.guardedSend(ctx, b, msg, base)
	}
	sctx, cancel := context.WithTimeout(ctx, w.rn.policy.SendTimeout)
	err := b.Sender.Send(sctx, msg)
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		err = asTimeout(err, b.ID)
	}
	cancel()
	return err
}

// guardedSend sends msg under the worker's send guard; base says whether
// ctx is the worker's base context, which the guard's context replaces.
// The guard is stopped in a deferred call so that a Sender that panics
// (whoever recovers the panic) cannot leave it armed, or its context
// cancelled, for the next send.
func (w *worker) guardedSend(ctx context.Context, b *Binding, msg ports.OutboundMessage, base bool) (err error) {
	defer func() {
		if w.guard.stop() && err != nil {
			err = asTimeout(err, b.ID)
		}
	}()
	gctx := w.guard.start(w.rn.coarseNow.Load())
	switch {
	case base && ctx != w.baseCtx:
		// A traced delivery: the guard's cancellation, the trace's values.
		w.sendCtx = valuesCtx{Context: gctx, vals: ctx}
		ctx = &w.sendCtx
	case base:
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

// safeSend calls Send and turns a panic into a permanent error.
func safeSend(ctx context.Context, s ports.Sender, m ports.OutboundMessage) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fault.NewWithClass(fault.ClassPermanent, fault.CodeInternal, fmt.Sprintf("sender panicked: %v", p))
		}
	}()
	return s.Send(ctx, m)
}

// safeSendBatch calls SendBatch and turns a panic into a whole-batch error.
func safeSendBatch(ctx context.Context, bs ports.BatchSender, msgs []ports.OutboundMessage) (res []ports.BatchResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fault.NewWithClass(fault.ClassPermanent, fault.CodeInternal, fmt.Sprintf("sender panicked: %v", p))
		}
	}()
	return bs.SendBatch(ctx, msgs)
}
