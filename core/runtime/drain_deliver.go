package runtime

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// deliver sends a claimed batch and settles each record: complete it,
// replay it later, or dead-letter it.
func (dr *drainer) deliver(ctx context.Context, recs []ports.OutboxRecord) {
	now := dr.rn.opts.Clock.Now()
	results := make([]error, len(recs))
	live := make([]int, 0, len(recs))
	for i, r := range recs {
		if !dr.mayWrite() {
			results[i] = errNotHolder
			continue
		}
		if err := dr.unsent(r, now); err != nil {
			results[i] = err
			continue
		}
		live = append(live, i)
	}
	var tr []recordTrace
	if dr.rn.traced {
		tr = make([]recordTrace, len(recs))
		for i, r := range recs {
			tr[i].ctx, tr[i].drain = dr.rn.startDrain(ctx, r)
		}
	}
	if bs, ok := dr.b.Sender.(ports.BatchSender); ok && len(live) > 1 {
		dr.sendBatch(ctx, bs, recs, live, results, tr)
	} else {
		dr.sendEach(ctx, recs, live, results, tr)
	}
	endSends(tr, results)
	done := make([]string, 0, len(recs))
	for i, r := range recs {
		sctx, sp := ctx, telemetry.Span(nil)
		if tr != nil {
			sctx, sp = tr[i].ctx, tr[i].drain
		}
		if dr.settle(sctx, r, results[i], sp) {
			done = append(done, r.ID)
		}
		if sp != nil {
			endWithFault(sp, results[i])
		}
	}
	// What the target accepted is completed even when the shutdown
	// deadline cancelled the rest of the batch: otherwise it would be
	// sent again after a restart. The write gets its own short deadline.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), completeTimeout)
	defer cancel()
	dr.complete(cctx, done)
}

// completeTimeout bounds the write that completes a delivered batch, which
// runs even after the shutdown deadline cancelled the batch's sends.
const completeTimeout = 5 * time.Second

// unsent returns why r must not be sent, or nil. An expired record is
// not sent. Nor is a record whose earlier claims alone spend the poison
// gate: those claims ended with neither a result nor a replay, which is
// what a send that kills the process looks like, and sending it again
// would only kill the process again. The error is transient, so the
// outcome table dead-letters it as poison.
func (dr *drainer) unsent(r ports.OutboxRecord, now time.Time) error {
	if r.Envelope != nil && r.Envelope.IsExpired(now) {
		return fault.ErrMessageExpired
	}
	p := dr.rn.policy
	earlier := r.ClaimCount - 1
	if earlier >= p.MaxReplayAttempts && earlier > r.ReplayCount && !r.FirstAttemptAt.IsZero() && now.Sub(r.FirstAttemptAt) >= p.ReplayBudget {
		return fault.NewWithClass(fault.ClassTransient, fault.CodeInternal, fmt.Sprintf(
			"claimed %d times and only %d ended with a result: an earlier send may have ended the process; not sent again", earlier, r.ReplayCount))
	}
	return nil
}

// sendBatch sends the live records in one SendBatch call.
// tr holds the records' trace state, nil when the route is not traced.
func (dr *drainer) sendBatch(ctx context.Context, bs ports.BatchSender, recs []ports.OutboxRecord, live []int, results []error, tr []recordTrace) {
	if !dr.mayWrite() {
		for _, i := range live {
			results[i] = errNotHolder
		}
		return
	}
	msgs := make([]ports.OutboundMessage, len(live))
	for k, i := range live {
		msgs[k] = ports.OutboundMessage{Envelope: dr.tracedOutbound(tr, recs, i), Address: recs[i].Address, NotBefore: dr.b.notBefore()}
	}
	sctx, cancel := context.WithTimeout(ctx, dr.rn.policy.SendTimeout)
	defer cancel()
	start := dr.rn.sendStart()
	res, err := safeSendBatch(sctx, bs, msgs)
	dr.rn.sendTimed(dr.b.ID, start, "") // a batch spans many traces
	if err == nil && len(res) != len(msgs) {
		err = fault.ErrProtocolError.WithMessage(fmt.Sprintf("batch sender returned %d results for %d messages", len(res), len(msgs)))
		err = fault.ErrUnavailable.Wrap(err) // the messages themselves did nothing wrong
	}
	if err != nil {
		for _, i := range live {
			results[i] = err
		}
		return
	}
	// Each message needs a result of its own: one the sender repeated,
	// skipped or placed out of range is a failure of that message, never
	// a delivery.
	seen := make([]bool, len(live))
	for _, r := range res {
		if r.Index < 0 || r.Index >= len(live) || seen[r.Index] {
			continue
		}
		seen[r.Index] = true
		results[live[r.Index]] = r.Err
	}
	for k, ok := range seen {
		if !ok {
			results[live[k]] = errNoBatchResult
		}
	}
}

// errNoBatchResult fails a message that a batch sender's results did not
// account for. It is transient: the message did nothing wrong, and the
// record is replayed.
var errNoBatchResult = fault.ErrUnavailable.Wrap(
	fault.ErrProtocolError.WithMessage("batch sender returned no result of its own for this message"))

// sendEach sends the live records one by one from at most MaxConcurrency
// goroutines, which take the next record from a shared counter.
// tr holds the records' trace state, nil when the route is not traced.
func (dr *drainer) sendEach(ctx context.Context, recs []ports.OutboxRecord, live []int, results []error, tr []recordTrace) {
	var next atomic.Int64
	work := func() {
		for {
			k := int(next.Add(1)) - 1
			if k >= len(live) {
				return
			}
			i := live[k]
			if !dr.mayWrite() {
				results[i] = errNotHolder
				continue
			}
			sctx, cancel := context.WithTimeout(ctx, dr.rn.policy.SendTimeout)
			start := dr.rn.sendStart()
			results[i] = safeSend(sctx, dr.b.Sender, ports.OutboundMessage{Envelope: dr.tracedOutbound(tr, recs, i), Address: recs[i].Address, NotBefore: dr.b.notBefore()})
			dr.rn.sendTimed(dr.b.ID, start, recordTraceID(tr, i))
			cancel()
		}
	}
	var wg sync.WaitGroup
	for range min(dr.pol.MaxConcurrency, len(live)) - 1 {
		wg.Go(work)
	}
	work() // the drainer's own goroutine is one of the senders
	wg.Wait()
}

// complete removes the settled records, in one write when the store can.
func (dr *drainer) complete(ctx context.Context, ids []string) {
	if len(ids) == 0 {
		return
	}
	if bc, ok := dr.store.(ports.OutboxBatchCompleter); ok {
		if err := bc.CompleteBatch(ctx, ids, dr.tok); err != nil {
			dr.storeError("complete", err)
		}
		return
	}
	// Completing concurrently lets a group-committing store share one
	// flush between them.
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			if err := dr.store.Complete(ctx, id, dr.tok); err != nil {
				dr.storeError("complete", err)
			}
		})
	}
	wg.Wait()
}

// storeError records a refused store write. The records involved stay
// claimed and are delivered again once their claim is stale: a duplicate,
// never a loss.
func (dr *drainer) storeError(op string, err error) {
	dr.m.claimErrors.Add(1)
	if fault.CodeOf(err) == fault.CodeStaleFencingToken {
		dr.log.Warn("outbox write fenced off: another drainer owns the partition", "op", op, "partition", dr.part)
		return
	}
	dr.log.Warn("outbox write failed", "op", op, "partition", dr.part, "err", err)
}
