package memtransport

import (
	"context"
	"time"
)

// RetryRecord is one successful Delivery.Retry call.
type RetryRecord struct {
	// ID is the envelope ID of the retried message.
	ID string
	// After is the requested delay (negative delays are recorded as 0).
	After time.Duration
	// Reason is the error the caller gave.
	Reason error
}

// ExtendRecord is one successful Delivery.Extend call.
type ExtendRecord struct {
	// ID is the envelope ID of the extended message.
	ID string
	// Until is the requested deadline.
	Until time.Time
}

// Stats is a consistent snapshot of a Receiver's counters.
type Stats struct {
	// Published counts successful Publish calls.
	Published int
	// Emitted counts deliveries passed to emit, including refused ones.
	Emitted int
	// Refused counts deliveries for which emit returned an error.
	Refused int
	// Acked and Retried count successful settlements; Extended counts
	// successful Extend calls.
	Acked, Retried, Extended int
	// DoubleSettlements counts Ack or Retry calls on a delivery that was
	// already settled. A correct runtime keeps it at zero.
	DoubleSettlements int
	// StaleSettlements counts first settlements of deliveries made stale
	// by RequeueUnsettled or by a refused emit.
	StaleSettlements int
	// Dropped counts messages RequeueUnsettled discarded (UnsettledDrop).
	Dropped int
	// Queued is the number of messages ready to be emitted, Delayed the
	// number waiting for a Retry delay, and Unsettled the number of
	// deliveries handed out and not yet settled.
	Queued, Delayed, Unsettled int
}

// Pending returns Queued + Delayed + Unsettled: the messages whose fate is
// not decided yet.
func (s Stats) Pending() int { return s.Queued + s.Delayed + s.Unsettled }

// counters is the Receiver's bookkeeping, guarded by its mutex.
type counters struct {
	published, emitted, refused int
	acks, retries, extends      int
	double, stale, dropped      int
	acked                       []string
	retried                     []RetryRecord
	extended                    []ExtendRecord
}

// Stats returns a snapshot of the counters.
func (r *Receiver) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.statsLocked()
}

func (r *Receiver) statsLocked() Stats {
	return Stats{
		Published: r.st.published, Emitted: r.st.emitted, Refused: r.st.refused,
		Acked: r.st.acks, Retried: r.st.retries, Extended: r.st.extends,
		DoubleSettlements: r.st.double, StaleSettlements: r.st.stale, Dropped: r.st.dropped,
		Queued: r.q.len(), Delayed: r.delayed, Unsettled: r.flying,
	}
}

// Acked returns the envelope IDs of acked deliveries in the order of the
// acks. It is empty when Options.NoHistory is set.
func (r *Receiver) Acked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.st.acked...)
}

// Retried returns the successful Retry calls in order. It is empty when
// Options.NoHistory is set.
func (r *Receiver) Retried() []RetryRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RetryRecord(nil), r.st.retried...)
}

// Extended returns the successful Extend calls in order. It is empty when
// Options.NoHistory is set.
func (r *Receiver) Extended() []ExtendRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ExtendRecord(nil), r.st.extended...)
}

// Unsettled returns the envelope IDs of the deliveries handed out and not
// yet settled, oldest first.
func (r *Receiver) Unsettled() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]string, 0, r.flying)
	for d := r.first; d != nil; d = d.next {
		ids = append(ids, d.orig.ID)
	}
	return ids
}

// Pending returns the number of messages queued, waiting for a Retry
// delay, or handed out and unsettled.
func (r *Receiver) Pending() int { return r.Stats().Pending() }

// DoubleSettlements returns how many times a delivery that was already
// settled was settled again.
func (r *Receiver) DoubleSettlements() int { return r.Stats().DoubleSettlements }

// Wait blocks until cond holds for a snapshot of the counters, or ctx
// ends. cond runs without the Receiver's lock held and may be called many
// times. Wait does not poll: it sleeps until the next change.
func (r *Receiver) Wait(ctx context.Context, cond func(Stats) bool) error {
	for {
		r.mu.Lock()
		s := r.statsLocked()
		if r.changed == nil {
			r.changed = make(chan struct{})
		}
		ch := r.changed
		r.mu.Unlock()
		if cond(s) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitAcked blocks until at least n deliveries were acked or ctx ends.
func (r *Receiver) WaitAcked(ctx context.Context, n int) error {
	return r.Wait(ctx, func(s Stats) bool { return s.Acked >= n })
}

// WaitRetried blocks until at least n deliveries were retried or ctx ends.
func (r *Receiver) WaitRetried(ctx context.Context, n int) error {
	return r.Wait(ctx, func(s Stats) bool { return s.Retried >= n })
}

// WaitUnsettled blocks until at least n deliveries are handed out and
// unsettled at the same time, or ctx ends.
func (r *Receiver) WaitUnsettled(ctx context.Context, n int) error {
	return r.Wait(ctx, func(s Stats) bool { return s.Unsettled >= n })
}

// WaitIdle blocks until no message is pending (see Pending) or ctx ends.
func (r *Receiver) WaitIdle(ctx context.Context) error {
	return r.Wait(ctx, func(s Stats) bool { return s.Pending() == 0 })
}

// notifyLocked wakes every Wait call. It allocates nothing when nobody
// waits.
func (r *Receiver) notifyLocked() {
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}
