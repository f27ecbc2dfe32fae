package runtime

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// LeaseGate lends the drainers of a clustered deployment the lease that
// lets them drain a partition. Without a gate (Options.LeaseGate nil) the
// drainers are standalone: they always drain, under the zero token.
type LeaseGate interface {
	// Hold blocks until this instance holds the lease that covers
	// partition and returns its term, which the drainer releases when it
	// stops using it. It fails when ctx ends first.
	Hold(ctx context.Context, partition string) (LeaseTerm, error)
}

// LeaseTerm is one tenure of a lease, as a drainer uses it.
type LeaseTerm interface {
	// Token is carried by every claim, complete and replay of the term.
	Token() ports.LeaseToken
	// Lost closes when the step-down began: no new batch is claimed.
	Lost() <-chan struct{}
	// Context ends when the step-down grace is over: the batch in hand is
	// abandoned, its records left claimed.
	Context() context.Context
	// Valid reports whether the lease is certainly still held. Nothing is
	// claimed, sent, replayed or dead-lettered while it is false, which is
	// what keeps a process that slept through its lease from delivering
	// again what its successor already took over.
	Valid() bool
	// Release tells the lease's owner that the drainer stopped using the
	// term.
	Release()
}

// errNotHolder is the result of a record the drainer did not send because
// the lease may be lost: the record stays claimed, and the lease's next
// holder delivers it once the claim is stale.
var errNotHolder = fault.ErrUnavailable.WithMessage("this instance may no longer hold the partition's lease; the record is left to the next holder")

var descLeaseSkipped = telemetry.Desc{Name: "gobridge_outbox_lease_skipped_total",
	Help:   "Outbox claims, sends and settlements a drainer skipped because its lease may have been lost (a paused process that woke up, a step-down in progress).",
	Labels: []string{"route", "binding"}}

// isNotHolder reports whether err is errNotHolder itself. Fault errors
// match by code under errors.Is, and other UNAVAILABLE results (a refused
// send) must still be retried, so the check is on identity.
func isNotHolder(err error) bool {
	e, ok := err.(*fault.BridgeError)
	return ok && e == errNotHolder
}

// mayWrite reports whether the drainer may claim, send or settle now: a
// standalone drainer always may, a leased one while its term is valid.
func (dr *drainer) mayWrite() bool {
	if dr.term == nil || dr.term.Valid() {
		return true
	}
	dr.skipped.Add(1)
	return false
}

// runLeased drains while this instance holds the partition's lease, and
// waits as a standby otherwise, until stop closes. Each term's token goes
// into every guarded write; when the term is lost the batch in hand gets
// the step-down grace, and what it could not settle stays claimed.
func (dr *drainer) runLeased(gate LeaseGate, stop <-chan struct{}, hard context.Context) {
	ctx, cancel := context.WithCancel(hard)
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		dr.m.setRole(roleStandby)
		term, err := gate.Hold(ctx, dr.part)
		if err != nil {
			return
		}
		dr.term, dr.tok = term, term.Token()
		dr.m.setRole(roleActive)
		dr.log.Info("partition lease held; draining", "partition", dr.part, "version", dr.tok.Version)
		bctx, bcancel := context.WithCancel(hard)
		stopAfter := context.AfterFunc(term.Context(), bcancel)
		dr.loop(stop, term.Lost(), bctx)
		stopAfter()
		bcancel()
		dr.term = nil
		term.Release()
		select {
		case <-stop:
			return
		default:
			dr.log.Info("partition lease lost; standby", "partition", dr.part, "version", dr.tok.Version)
		}
	}
}
