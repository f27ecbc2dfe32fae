package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// drainer delivers the outbox records of one partition (a route's binding):
// claim a batch, send it, then complete, replay or dead-letter each record.
// Standalone drainers hold no lease and carry the zero token on every
// guarded write; leased drainers (Options.LeaseGate) carry their term's
// token and drain only while the term is valid.
type drainer struct {
	rn      *runner
	b       *Binding
	part    string
	pol     OutboxPolicy
	store   ports.OutboxStore
	tok     ports.LeaseToken
	term    LeaseTerm // nil for a standalone drainer
	log     *slog.Logger
	m       drainMetrics
	skipped telemetry.Counter

	batch    int           // current claim size
	interval time.Duration // current adaptive idle interval
}

func newDrainer(rn *runner, b *Binding) *drainer {
	pol := rn.policy.Outbox
	return &drainer{
		rn: rn, b: b, part: partitionOf(rn.route.ID, b.ID), pol: pol, store: rn.opts.Outbox,
		log:   rn.log.With("binding", b.ID),
		batch: pol.BatchSize, interval: pol.Strategy.MinInterval,
		m:       newDrainMetrics(rn, b),
		skipped: rn.opts.Meter.Counter(descLeaseSkipped, rn.route.ID, b.ID),
	}
}

// run drains until stop closes, finishing the batch in hand; hard cancels
// the batch in hand (its records stay claimed and are taken over once the
// claim is stale). With a lease gate it drains only while the lease is
// held.
func (dr *drainer) run(stop <-chan struct{}, hard context.Context) {
	defer dr.m.setRole("")
	if gate := dr.rn.opts.LeaseGate; gate != nil {
		dr.runLeased(gate, stop, hard)
		return
	}
	dr.m.setRole(roleStandalone)
	defer dr.flushVolatile(hard)
	dr.loop(stop, nil, hard)
}

// loop claims and delivers batches until stop or lost closes.
func (dr *drainer) loop(stop, lost <-chan struct{}, ctx context.Context) {
	clk := dr.rn.opts.Clock
	timer := clk.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-stop:
			return
		case <-lost:
			return
		default:
		}
		n, err := dr.cycle(ctx)
		dr.observeDepth(ctx)
		wait := dr.nextWait(n, err)
		if wait <= 0 {
			continue
		}
		timer.Reset(wait)
		select {
		case <-stop:
			timer.Stop()
			return
		case <-lost:
			timer.Stop()
			return
		case <-timer.C():
		}
	}
}

// flushVolatile runs at stop. An outbox kept in memory dies with the
// process, so its partition is drained until empty or until hard ends (the
// stop timeout), retrying records whose backoff runs out meanwhile; what is
// left is reported as lost. A durable outbox keeps its backlog for the
// next start and is left as it is.
func (dr *drainer) flushVolatile(hard context.Context) {
	if !ports.IsVolatile(dr.store) {
		return
	}
	clk := dr.rn.opts.Clock
	for hard.Err() == nil {
		n, err := dr.cycle(hard)
		if n > 0 && err == nil {
			continue
		}
		if depth, derr := dr.store.Depth(hard, dr.part); derr != nil || depth == 0 {
			break
		}
		// Only records waiting for their backoff are left: poll again.
		t := clk.NewTimer(dr.pol.Strategy.MinInterval)
		select {
		case <-hard.Done():
		case <-t.C():
		}
		t.Stop()
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(hard), completeTimeout)
	defer cancel()
	if depth, err := dr.store.Depth(ctx, dr.part); err == nil && depth > 0 {
		dr.log.Error(fmt.Sprintf("memory outbox: %d records not delivered by the stop timeout are lost with the process", depth),
			"partition", dr.part, "lost", depth)
	}
}

// cycle claims and delivers one batch and returns how many records it
// claimed.
func (dr *drainer) cycle(ctx context.Context) (int, error) {
	if !dr.mayWrite() {
		return 0, errNotHolder
	}
	recs, err := dr.store.Claim(ctx, dr.part, dr.tok, dr.batch)
	if err != nil {
		if ctx.Err() == nil {
			dr.m.claimErrors.Add(1)
			dr.log.Warn("outbox claim failed", "partition", dr.part, "err", err)
		}
		return 0, err
	}
	dr.observeClaim(recs)
	if len(recs) > 0 {
		dr.deliver(ctx, recs)
	}
	return len(recs), nil
}

// nextWait adapts the claim size and returns how long to wait before the
// next poll: no wait while claims return work, the strategy's idle interval
// otherwise.
func (dr *drainer) nextWait(n int, err error) time.Duration {
	switch {
	case n >= dr.batch:
		dr.batch = min(dr.batch*2, dr.pol.MaxBatchSize)
	case n < dr.batch/2:
		dr.batch = max(dr.batch/2, dr.pol.BatchSize)
	}
	s := dr.pol.Strategy
	if n > 0 && err == nil {
		dr.interval = s.MinInterval
		return 0
	}
	if s.Type == FixedPoll {
		return s.Interval
	}
	wait := dr.interval
	dr.interval = min(time.Duration(float64(dr.interval)*s.Multiplier), s.MaxInterval)
	return wait
}
