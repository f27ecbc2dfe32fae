package runtime

import (
	"context"
	"errors"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// settle ends a delivery according to err and the route policy. Exactly one
// of Ack or Retry is called, or neither when the bridge stopped working on
// the delivery (shutdown or an abandoned source), which leaves it for the
// source to redeliver.
func (w *worker) settle(ctx context.Context, d ports.Delivery, env *messaging.Envelope, err error) {
	rn := w.rn
	if err == nil {
		w.ack(d, env)
		return
	}
	if ctx.Err() != nil && !errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		// Cancelled by shutdown or an abandoned source. A context whose
		// cause is a deadline was cancelled by the send guard (see
		// worker.handle): that is a send timeout, settled like any other.
		rn.m.unsettled.Add(1)
		rn.log.Debug("delivery abandoned unsettled", "message_id", env.ID, "err", err)
		return
	}
	rn.m.failed(err)
	p := rn.policy
	switch fault.ClassOf(err) {
	case fault.ClassRejected:
		if errors.Is(err, fault.ErrMessageFiltered) {
			w.terminal(d, env, err, p.OnFiltered, ports.DLQFiltered, reasonFiltered)
			return
		}
		rn.log.Info("message rejected; dropping", "message_id", env.ID, "err", err)
		w.terminal(d, env, err, Drop, ports.DLQRejected, reasonRejected)
	case fault.ClassExpired:
		w.terminal(d, env, err, p.OnExpired, ports.DLQExpired, reasonExpired)
	case fault.ClassPermanent:
		rn.log.Warn("permanent failure", "message_id", env.ID, "err", err)
		w.terminal(d, env, err, p.OnPermanentFailure, ports.DLQPermanent, reasonPermanent)
	default:
		if w.uncounted {
			// The outbox was full or slow: retry without charging the
			// message's replay budget.
			w.requeue(d, env, err, reasonOutboxUnavailable)
			return
		}
		w.retry(d, env, err)
	}
}

// ack acknowledges d and forgets the message's failure history.
func (w *worker) ack(d ports.Delivery, env *messaging.Envelope) {
	rn := w.rn
	if err := d.Ack(rn.settleCtx); err != nil {
		rn.m.settleErr.Add(1)
		rn.log.Warn("ack failed; the source may redeliver", "message_id", env.ID, "err", err)
	} else {
		rn.m.acked.Add(1)
		w.outcome.Outcome, w.outcome.Terminal = ports.SettledAcked, true
	}
	if rn.attempts.active() {
		rn.attempts.forget(w.key())
	}
}

// terminal finishes a message that will not be retried: written to the DLQ
// (then acked) or dropped (acked and counted). A DLQ write that fails hands
// the delivery back to the source so the evidence is not lost.
func (w *worker) terminal(d ports.Delivery, env *messaging.Envelope, err error, action Action, cat ports.DLQCategory, reason string) {
	rn := w.rn
	rn.m.ended(cat)
	if action == DLQ {
		if werr := w.deadLetter(env, d, err, cat); werr != nil {
			rn.m.dlqErr.Add(1)
			rn.log.Error("DLQ write failed; handing the message back to its source", "message_id", env.ID, "err", werr)
			w.requeue(d, env, werr, reasonDLQUnavailable)
			return
		}
		rn.m.dlq[cat].Add(1)
	} else {
		rn.m.dropped[reason].Add(1)
	}
	w.ack(d, env)
}

// retry hands a transiently failed delivery back to its source after the
// backoff delay, or ends it when its retry budget is spent or the source
// cannot retry.
func (w *worker) retry(d ports.Delivery, env *messaging.Envelope, err error) {
	rn := w.rn
	now := rn.opts.Clock.Now()
	failures, first := rn.attempts.fail(w.key(), now)
	rn.attempts.markSent(w.key(), now, w.accepted)
	attempt := attemptNumber(d, failures)

	// Only failures of the message itself spend the replay budget. The
	// source's redelivery count, which drives the backoff, also counts
	// deliveries the bridge abandoned or handed back after a DLQ refusal.
	if failures >= rn.policy.MaxReplayAttempts && now.Sub(first) >= rn.policy.ReplayBudget {
		poison := fault.ErrPoisonMessage.Wrap(err)
		w.terminal(d, env, poison, w.fallbackAction(), ports.DLQMaxRetries, reasonPoison)
		return
	}
	delay := rn.policy.Backoff.Delay(attempt, rn.opts.Rand())
	if hint := fault.RetryAfter(err); hint > delay {
		delay = hint
	}
	rerr := d.Retry(rn.settleCtx, delay, err)
	switch {
	case rerr == nil:
		rn.m.retried.Add(1)
		w.outcome.Outcome = ports.SettledRetried
	case errors.Is(rerr, fault.ErrNotSupported):
		w.terminal(d, env, err, w.fallbackAction(), ports.DLQRetryUnsupported, reasonRetryUnsupported)
	default:
		rn.m.settleErr.Add(1)
		rn.log.Warn("retry failed; leaving the delivery to the source", "message_id", env.ID, "err", rerr)
	}
}

// requeue hands a delivery back after a failure that was not the
// message's own (the DLQ refused the entry, the outbox was full or slow).
// The replay budget is not charged. When the source cannot retry, the
// message goes to the DLQ if that is not what failed, else it is left
// unsettled when the source redelivers unsettled messages, and only
// otherwise dropped and counted under reason.
func (w *worker) requeue(d ports.Delivery, env *messaging.Envelope, cause error, reason string) {
	rn := w.rn
	now := rn.opts.Clock.Now()
	// Fan-out destinations that accepted are not sent to again when the
	// message comes back.
	rn.attempts.markSent(w.key(), now, w.accepted)
	failures, _ := rn.attempts.peek(w.key(), now)
	delay := rn.policy.Backoff.Delay(attemptNumber(d, failures), rn.opts.Rand())
	rerr := d.Retry(rn.settleCtx, delay, cause)
	switch {
	case rerr == nil:
		rn.m.retried.Add(1)
		w.outcome.Outcome = ports.SettledRetried
	case errors.Is(rerr, fault.ErrNotSupported) && reason != reasonDLQUnavailable && rn.opts.DLQ != nil:
		w.terminal(d, env, cause, DLQ, ports.DLQRetryUnsupported, reasonRetryUnsupported)
	case errors.Is(rerr, fault.ErrNotSupported) && rn.caps.RedeliversUnsettled:
		// Neither stored nor retryable, but the source sends back what
		// the bridge never settled: leave it for that redelivery.
		rn.m.unsettled.Add(1)
		rn.log.Error("message left unsettled for its source to redeliver: it could not be stored and the source cannot retry",
			"message_id", env.ID, "reason", reason, "err", cause)
	case errors.Is(rerr, fault.ErrNotSupported):
		rn.m.dropped[reason].Add(1)
		rn.log.Error("message dropped: it could not be stored and the source cannot retry",
			"message_id", env.ID, "reason", reason, "err", cause)
		w.ack(d, env)
	default:
		rn.m.settleErr.Add(1)
		rn.log.Warn("retry failed; leaving the delivery to the source", "message_id", env.ID, "err", rerr)
	}
}

// fallbackAction is where a message goes when retrying is over: the DLQ
// when there is one, else it is dropped (only allowed with allow_retry_drop
// or an all-drop policy).
func (w *worker) fallbackAction() Action {
	if w.rn.opts.DLQ != nil {
		return DLQ
	}
	return Drop
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
