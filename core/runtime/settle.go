package runtime

import (
	"context"
	"errors"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// settle ends a delivery according to err and the route policy, as the
// outcome table (decide) says. Exactly one of Ack or Retry is called, or
// neither when the delivery is left unsettled (the bridge stopped working
// on it, or it could be neither stored nor retried), which leaves it for
// the source to redeliver.
func (w *worker) settle(ctx context.Context, d ports.Delivery, env *messaging.Envelope, err error) {
	rn := w.rn
	if rn.fenced() {
		// Whatever happened, another instance may hold the source now:
		// acking, retrying or dead-lettering would act on its message.
		rn.m.fenced.Add(1)
		rn.m.unsettled.Add(1)
		rn.log.Debug("lease lost: delivery left with its source", "message_id", env.ID)
		w.holdWhileFenced()
		return
	}
	if err == nil {
		w.ack(d, env)
		return
	}
	f := attemptFacts{
		err: err,
		// A context whose cause is a deadline was cancelled by the send
		// guard (see worker.handle): that is a send timeout, settled like
		// any other failure.
		cancelled:  ctx.Err() != nil && !errors.Is(context.Cause(ctx), context.DeadlineExceeded),
		uncounted:  w.uncounted,
		canRetry:   true, // until the source says otherwise
		redelivers: rn.caps.RedeliversUnsettled,
		hasDLQ:     rn.opts.DLQ != nil,
		rnd:        rn.opts.Rand(),
	}
	if !f.cancelled {
		rn.m.failed(err)
		if fault.ClassOf(err) == fault.ClassPermanent {
			rn.log.Warn("permanent failure", "message_id", env.ID, "err", err)
		}
	}
	now := rn.opts.Clock.Now()
	var failures int
	var first time.Time
	if !f.cancelled && !f.uncounted && fault.IsRecoverable(err) {
		// Only failures of the message itself spend the replay budget.
		failures, first = rn.attempts.fail(w.key(), now)
	} else {
		failures, first = rn.attempts.peek(w.key(), now)
	}
	f.failures, f.age, f.attempt = failures, now.Sub(first), attemptNumber(d, failures)
	for {
		v := decide(f, rn.policy)
		switch v.kind {
		case settleUnsettled:
			w.leaveUnsettled(env, v, now)
			return
		case settleRetry:
			rn.attempts.markSent(w.key(), now, w.accepted)
			rerr := d.Retry(rn.settleCtx, v.delay, v.err)
			switch {
			case rerr == nil:
				rn.m.retried.Add(1)
				w.outcome.Outcome = ports.SettledRetried
				if w.span != nil {
					w.span.AddEvent(eventRetry, telemetry.Int(attrAttempt, int64(f.attempt)),
						telemetry.Int(attrDelayMS, v.delay.Milliseconds()), telemetry.String(attrFault, string(fault.CodeOf(v.err))))
				}
			case errors.Is(rerr, fault.ErrNotSupported):
				f.canRetry = false
				continue
			default:
				rn.m.settleErr.Add(1)
				w.settleFailed(d, env, "retry failed; leaving the delivery to the source", rerr)
			}
			return
		case settleDeadLetter:
			if rj, ok := d.(ports.Rejecter); ok && !f.dlqFailed {
				// The source dead-letters it itself when configured to.
				rerr := rj.Reject(rn.settleCtx, v.category, v.err)
				if rerr == nil {
					w.rejectedToSource(v)
					return
				}
				if !errors.Is(rerr, fault.ErrNotSupported) {
					w.settleFailed(d, env, "reject failed; leaving the delivery to the source", rerr)
					return
				}
			}
			rn.m.ended(v.category)
			if werr := w.tracedDeadLetter(ctx, env, d, v.err, v.category); werr != nil {
				rn.m.dlqErr.Add(1)
				rn.log.Error("DLQ write failed; handing the message back to its source", "message_id", env.ID, "err", werr)
				f.dlqFailed, f.err = true, werr
				continue
			}
			rn.m.dlq[v.category].Add(1)
			w.ack(d, env)
			return
		case settleDrop:
			w.drop(d, env, v)
			return
		}
	}
}

// rejectedToSource counts a message its source dead-lettered itself (see
// ports.Rejecter): it is done, as if acknowledged.
func (w *worker) rejectedToSource(v verdict) {
	rn := w.rn
	rn.m.ended(v.category)
	rn.m.rejected[v.category].Add(1)
	w.outcome.Outcome, w.outcome.Terminal = ports.SettledAcked, true
	if rn.attempts.active() {
		rn.attempts.forget(w.key())
	}
}

// leaveUnsettled counts a delivery the bridge leaves with its source.
func (w *worker) leaveUnsettled(env *messaging.Envelope, v verdict, now time.Time) {
	rn := w.rn
	rn.m.unsettled.Add(1)
	if v.reason == "cancelled" {
		rn.log.Debug("delivery abandoned unsettled", "message_id", env.ID, "err", v.err)
		return
	}
	// Fan-out destinations that accepted are not sent to again when the
	// message comes back.
	rn.attempts.markSent(w.key(), now, w.accepted)
	rn.log.Error("message left unsettled for its source to redeliver: it could not be stored and the source cannot retry",
		"message_id", env.ID, "reason", v.reason, "err", v.err)
}

// drop acknowledges a message without delivering it, counted under the
// verdict's reason.
func (w *worker) drop(d ports.Delivery, env *messaging.Envelope, v verdict) {
	rn := w.rn
	if v.category != "" {
		rn.m.ended(v.category)
	}
	rn.m.dropped[v.reason].Add(1)
	switch v.reason {
	case reasonRejected:
		rn.log.Info("message rejected; dropping", "message_id", env.ID, "err", v.err)
	case reasonDLQUnavailable, reasonOutboxUnavailable:
		rn.log.Error("message dropped: it could not be stored and the source can neither retry nor redeliver it",
			"message_id", env.ID, "reason", v.reason, "err", v.err)
	}
	w.ack(d, env)
}

// ack acknowledges d and forgets the message's failure history.
func (w *worker) ack(d ports.Delivery, env *messaging.Envelope) {
	rn := w.rn
	if err := d.Ack(rn.settleCtx); err != nil {
		w.settleFailed(d, env, "ack failed; the source may redeliver", err)
	} else {
		rn.m.acked.Add(1)
		w.outcome.Outcome, w.outcome.Terminal = ports.SettledAcked, true
	}
	if rn.attempts.active() {
		rn.attempts.forget(w.key())
	}
}

// settleFailed counts an Ack or Retry the source refused and logs it. When
// the source itself has gone (its channel or connection closed, which its
// AbandonContext reports), the source already knows and redelivers: that
// was logged once by the source, so each delivery says so only at debug
// level instead of one warning per message in flight.
func (w *worker) settleFailed(d ports.Delivery, env *messaging.Envelope, msg string, err error) {
	w.rn.m.settleErr.Add(1)
	if ac, ok := d.(ports.AbandonContexter); ok && ac.AbandonContext().Err() != nil {
		w.rn.log.Debug(msg, "message_id", env.ID, "err", err)
		return
	}
	w.rn.log.Warn(msg, "message_id", env.ID, "err", err)
}

// attemptNumber is the 1-based number of the attempt that just failed: the
// source's redelivery count when it keeps one, else the bridge's own count.
func attemptNumber(d ports.Delivery, failures int) int {
	if rc, ok := d.(ports.RedeliveryCounter); ok {
		if n, ok := rc.RedeliveryCount(); ok {
			return n + 1
		}
	}
	return max(failures, 1)
}

// deadLetter writes one DLQ entry per failed destination, or one entry for
// a failure that happened before dispatch. The stored envelope carries the
// ID, subject and payload as received, so a redrive runs the route again from
// the start.
func (w *worker) deadLetter(env *messaging.Envelope, d ports.Delivery, err error, cat ports.DLQCategory) error {
	rn := w.rn
	now := rn.opts.Clock.Now()
	failures, first := rn.attempts.peek(w.key(), now)
	stored := env.Clone()
	stored.ID = w.origID
	stored.Subject = w.origSubj
	stored.SetPayload(w.origBody)
	base := ports.DLQEntry{
		Envelope:       stored,
		RouteID:        rn.route.ID,
		Category:       cat,
		Attempts:       attemptNumber(d, failures),
		FirstFailureAt: first,
		LastFailureAt:  now,
	}
	ctx, cancel := context.WithTimeout(rn.settleCtx, rn.policy.SendTimeout)
	defer cancel()
	targets := w.failures
	if !w.dispatched || errors.Is(err, fault.ErrPoisonMessage) || len(targets) == 0 {
		targets = []dispatchFailure{{err: err}}
		if w.dispatched && len(w.failures) > 0 {
			// Name the destination whose failure settled the message.
			f := w.failures[w.decidingFailure()]
			targets[0].bindingID, targets[0].address = f.bindingID, f.address
		}
	}
	for _, f := range targets {
		if fault.IsRecoverable(f.err) && cat != ports.DLQMaxRetries && cat != ports.DLQRetryUnsupported {
			continue // this destination may still accept the message
		}
		e := base
		e.BindingID, e.Address = f.bindingID, f.address
		fillError(&e, f.err)
		if werr := rn.opts.DLQ.Write(ctx, e); werr != nil {
			return werr
		}
	}
	return nil
}

func fillError(e *ports.DLQEntry, err error) {
	e.ErrorClass = fault.ClassOf(err).String()
	e.ErrorCode = string(fault.CodeOf(err))
	e.ErrorMessage = err.Error()
}
