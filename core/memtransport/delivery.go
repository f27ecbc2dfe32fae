package memtransport

import (
	"context"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

type deliveryState uint8

const (
	stateInFlight deliveryState = iota // handed out, not settled
	stateSettled                       // acked or retried
	stateStale                         // requeued by a restart or refused by emit
)

// delivery is one hand-out of a queued message. Its envelope is a private
// copy, so the runtime may change headers without affecting the message a
// later redelivery presents. All mutable fields are guarded by r.mu.
type delivery struct {
	r            *Receiver
	env          messaging.Envelope
	orig         *messaging.Envelope
	redeliveries int
	state        deliveryState
	prev, next   *delivery
}

var (
	_ ports.Delivery          = (*delivery)(nil)
	_ ports.RedeliveryCounter = (*delivery)(nil)
)

// Envelope returns the delivery's own copy of the message.
func (d *delivery) Envelope() *messaging.Envelope { return &d.env }

// RedeliveryCount reports how often the message was delivered before,
// when Options.CountRedeliveries is set.
func (d *delivery) RedeliveryCount() (int, bool) {
	if !d.r.opts.CountRedeliveries {
		return 0, false
	}
	return d.redeliveries, true
}

// Ack settles the delivery for good. The context is not consulted: the
// operation is in memory and completes at once.
func (d *delivery) Ack(context.Context) error {
	r := d.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.settleLocked(d); err != nil {
		return err
	}
	r.st.acks++
	if !r.opts.NoHistory {
		r.st.acked = append(r.st.acked, d.orig.ID)
	}
	r.notifyLocked()
	return nil
}

// Retry settles the delivery and queues the original message again after
// the delay, measured with the Receiver's clock. The timer is created
// before Retry returns, so a test driving a fake clock may advance it
// right away.
func (d *delivery) Retry(_ context.Context, after time.Duration, reason error) error {
	r := d.r
	r.mu.Lock()
	if d.state == stateInFlight && r.opts.NoRetry {
		r.mu.Unlock()
		return errNoRetry
	}
	if err := r.settleLocked(d); err != nil {
		r.mu.Unlock()
		return err
	}
	after = max(after, 0)
	r.st.retries++
	if !r.opts.NoHistory {
		r.st.retried = append(r.st.retried, RetryRecord{ID: d.orig.ID, After: after, Reason: reason})
	}
	e := entry{env: d.orig, redeliveries: d.redeliveries + 1}
	if after == 0 || r.closed {
		r.q.pushBack(e)
		r.notifyLocked()
		r.mu.Unlock()
		signal(r.notEmpty)
		return nil
	}
	r.delayed++
	t := r.clk.NewTimer(after)
	r.notifyLocked()
	r.mu.Unlock()
	go r.release(t, e)
	return nil
}

// release queues e when t fires, or at once when the Receiver closes.
func (r *Receiver) release(t ports.Timer, e entry) {
	select {
	case <-t.C():
	case <-r.done:
		t.Stop()
	}
	r.mu.Lock()
	r.delayed-- // in the same critical section as the push, so Pending never dips
	r.q.pushBack(e)
	r.notifyLocked()
	r.mu.Unlock()
	signal(r.notEmpty)
}

// Extend records the requested deadline and returns nil while the
// delivery is unsettled.
func (d *delivery) Extend(_ context.Context, until time.Time) error {
	r := d.r
	r.mu.Lock()
	defer r.mu.Unlock()
	switch d.state {
	case stateSettled:
		return errAlreadySettled
	case stateStale:
		return errStale
	}
	r.st.extends++
	if !r.opts.NoHistory {
		r.st.extended = append(r.st.extended, ExtendRecord{ID: d.orig.ID, Until: until})
	}
	r.notifyLocked()
	return nil
}

// settleLocked moves an in-flight delivery to settled. A delivery settled
// before is counted as a double settlement, a stale one as a stale
// settlement; both return an error and change nothing else.
func (r *Receiver) settleLocked(d *delivery) error {
	switch d.state {
	case stateInFlight:
		r.unlinkLocked(d)
		d.state = stateSettled
		return nil
	case stateStale:
		d.state = stateSettled
		r.st.stale++
		r.notifyLocked()
		return errStale
	default:
		r.st.double++
		r.notifyLocked()
		return errAlreadySettled
	}
}
