package runtime

import (
	"context"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// settle decides what happens to one record after its send, as the outcome
// table (decide) says, and reports whether the record is finished (to be
// completed). The outbox is a source that can always retry: a retry
// replays the record.
//
// sp is the record's drain span, nil when the route is not traced; ctx
// then carries it.
func (dr *drainer) settle(ctx context.Context, r ports.OutboxRecord, err error, sp telemetry.Span) bool {
	rn := dr.rn
	if err == nil {
		dr.recordDelivered(r)
		return true
	}
	if ctx.Err() != nil || isNotHolder(err) || !dr.mayWrite() {
		// Shutdown, or the lease may be lost: leave the record claimed;
		// it is taken over once the claim is stale. Nothing was learned
		// about the message, or this instance may no longer act on it.
		return false
	}
	rn.m.sendError(dr.b.ID, err).Add(1)
	rn.m.failed(err)
	now := rn.opts.Clock.Now()
	first := r.FirstAttemptAt
	if first.IsZero() {
		first = now
	}
	attempt := r.ReplayCount + 1
	f := attemptFacts{
		err: err, canRetry: true, hasDLQ: rn.opts.DLQ != nil, rnd: rn.opts.Rand(),
		// Claims count towards the poison gate, reclaims after a crash
		// included: a record that kills its drainer never gets to replay.
		failures: max(r.ClaimCount, attempt), age: now.Sub(first), attempt: attempt,
	}
	for {
		v := decide(f, rn.policy)
		switch v.kind {
		case settleRetry:
			if sp != nil {
				sp.AddEvent(eventRetry, telemetry.Int(attrAttempt, int64(attempt)),
					telemetry.Int(attrDelayMS, v.delay.Milliseconds()), telemetry.String(attrFault, string(fault.CodeOf(v.err))))
			}
			dr.replay(ctx, r, v)
			return false
		case settleDeadLetter:
			rn.m.ended(v.category)
			if werr := dr.tracedDeadLetter(ctx, r, v, first, sp != nil); werr != nil {
				rn.m.dlqErr.Add(1)
				dr.log.Error("DLQ write failed; keeping the record in the outbox", "record", r.ID, "err", werr)
				f.dlqFailed, f.err = true, werr
				continue
			}
			rn.m.dlq[v.category].Add(1)
			return true
		case settleDrop:
			if v.category != "" {
				rn.m.ended(v.category)
			}
			rn.m.dropped[v.reason].Add(1)
			return true
		default: // the outbox always retries, so nothing else is decided
			return false
		}
	}
}

// replay schedules the record's next attempt after the verdict's delay.
func (dr *drainer) replay(ctx context.Context, r ports.OutboxRecord, v verdict) {
	rn := dr.rn
	if err := dr.store.Replay(ctx, r.ID, dr.tok, v.err, rn.opts.Clock.Now().Add(v.delay)); err != nil {
		dr.storeError("replay", err)
		return
	}
	dr.m.replayed.Add(1)
}

// deadLetter writes the record's DLQ entry, marked as failed in the outbox
// stage.
func (dr *drainer) deadLetter(ctx context.Context, r ports.OutboxRecord, v verdict, first time.Time) error {
	rn := dr.rn
	stored := r.Envelope
	if stored != nil {
		stored = stored.Clone()
		stored.SetHeader(ports.HeaderDLQStage, ports.DLQStageOutbox)
	}
	e := ports.DLQEntry{
		Envelope: stored, RouteID: r.RouteID, BindingID: r.BindingID, Address: r.Address,
		Category: v.category, Attempts: max(r.ClaimCount, r.ReplayCount+1), FirstFailureAt: first, LastFailureAt: rn.opts.Clock.Now(),
	}
	fillError(&e, v.err)
	wctx, cancel := context.WithTimeout(ctx, rn.policy.SendTimeout)
	defer cancel()
	return rn.opts.DLQ.Write(wctx, e)
}
