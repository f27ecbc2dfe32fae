package runtime

import (
	"context"
	"errors"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// settle decides what happens to one record after its send and reports
// whether the record is finished (to be completed).
func (dr *drainer) settle(ctx context.Context, r ports.OutboxRecord, err error) bool {
	rn := dr.rn
	if err == nil {
		dr.recordDelivered(r)
		return true
	}
	if ctx.Err() != nil {
		// Shutdown: leave the record claimed; it is taken over once the
		// claim is stale. Nothing was learned about the message.
		return false
	}
	rn.m.sendError(dr.b.ID, err).Add(1)
	rn.m.failed(err)
	p := rn.policy
	switch fault.ClassOf(err) {
	case fault.ClassPermanent:
		return dr.terminal(ctx, r, err, p.OnPermanentFailure, ports.DLQPermanent, reasonPermanent)
	case fault.ClassExpired:
		return dr.terminal(ctx, r, err, p.OnExpired, ports.DLQExpired, reasonExpired)
	case fault.ClassRejected:
		if errors.Is(err, fault.ErrMessageFiltered) {
			return dr.terminal(ctx, r, err, p.OnFiltered, ports.DLQFiltered, reasonFiltered)
		}
		return dr.terminal(ctx, r, err, Drop, ports.DLQRejected, reasonRejected)
	}
	now := rn.opts.Clock.Now()
	attempts := r.ReplayCount + 1
	first := r.FirstAttemptAt
	if first.IsZero() {
		first = now
	}
	if attempts >= p.MaxReplayAttempts && now.Sub(first) >= p.ReplayBudget {
		fallback := Drop
		if rn.opts.DLQ != nil {
			fallback = DLQ
		}
		return dr.terminal(ctx, r, fault.ErrPoisonMessage.Wrap(err), fallback, ports.DLQMaxRetries, reasonPoison)
	}
	dr.replay(ctx, r, err, attempts)
	return false
}

// replay schedules the record's next attempt after the backoff delay, or
// the error's retry-after hint when that is longer.
func (dr *drainer) replay(ctx context.Context, r ports.OutboxRecord, cause error, attempt int) {
	rn := dr.rn
	delay := rn.policy.Backoff.Delay(attempt, rn.opts.Rand())
	if hint := fault.RetryAfter(cause); hint > delay {
		delay = hint
	}
	if err := dr.store.Replay(ctx, r.ID, dr.tok, cause, rn.opts.Clock.Now().Add(delay)); err != nil {
		dr.storeError("replay", err)
		return
	}
	dr.m.replayed.Add(1)
}

// terminal dead-letters or drops a record that will not be retried and
// reports whether it may be completed. A DLQ write that fails replays the
// record instead, so it is not lost.
func (dr *drainer) terminal(ctx context.Context, r ports.OutboxRecord, err error, action Action, cat ports.DLQCategory, reason string) bool {
	rn := dr.rn
	rn.m.ended(cat)
	if action != DLQ {
		rn.m.dropped[reason].Add(1)
		return true
	}
	now := rn.opts.Clock.Now()
	first := r.FirstAttemptAt
	if first.IsZero() {
		first = now
	}
	stored := r.Envelope
	if stored != nil {
		stored = stored.Clone()
		stored.SetHeader(ports.HeaderDLQStage, ports.DLQStageOutbox)
	}
	e := ports.DLQEntry{
		Envelope: stored, RouteID: r.RouteID, BindingID: r.BindingID, Address: r.Address,
		Category: cat, Attempts: r.ReplayCount + 1, FirstFailureAt: first, LastFailureAt: now,
	}
	fillError(&e, err)
	wctx, cancel := context.WithTimeout(ctx, rn.policy.SendTimeout)
	defer cancel()
	if werr := rn.opts.DLQ.Write(wctx, e); werr != nil {
		rn.m.dlqErr.Add(1)
		dr.log.Error("DLQ write failed; keeping the record in the outbox", "record", r.ID, "err", werr)
		dr.replay(ctx, r, werr, r.ReplayCount+1)
		return false
	}
	rn.m.dlq[cat].Add(1)
	return true
}
