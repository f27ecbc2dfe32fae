package sqs

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// delivery is one received SQS message. Its lease is the message's
// visibility deadline.
type delivery struct {
	env      *messaging.Envelope
	handle   string
	msgID    string
	received int // ApproximateReceiveCount, 0 when absent
	st       *settler
	now      func() time.Time
	release  func() // gives the in-flight slot back
	freed    sync.Once
	finished sync.Once
	settled  chan struct{} // closed once the delivery is done with; nil unless ordered
	acked    atomic.Bool
	lease    atomic.Int64 // UnixNano of the visibility deadline
}

var (
	_ ports.Delivery          = (*delivery)(nil)
	_ ports.Leased            = (*delivery)(nil)
	_ ports.RedeliveryCounter = (*delivery)(nil)
	_ ports.DeliveryKeyer     = (*delivery)(nil)
	_ ports.SettleObserver    = (*delivery)(nil)
)

func newDelivery(m types.Message, st *settler, now func() time.Time, vis time.Duration, release func()) *delivery {
	t := now()
	d := &delivery{env: fromWire(m, t), st: st, now: now, release: release}
	if m.ReceiptHandle != nil {
		d.handle = *m.ReceiptHandle
	}
	if m.MessageId != nil {
		d.msgID = *m.MessageId
	}
	if c, ok := m.Attributes[string(types.MessageSystemAttributeNameApproximateReceiveCount)]; ok {
		if n, err := strconv.Atoi(c); err == nil && n > 0 {
			d.received = n
		}
	}
	d.lease.Store(t.Add(vis).UnixNano())
	return d
}

// Envelope returns the message.
func (d *delivery) Envelope() *messaging.Envelope { return d.env }

// Ack deletes the message, in a DeleteMessageBatch shared with other
// acks, and returns the delete's outcome. The in-flight slot is given back
// as soon as the delete is queued: the route is done with the message,
// and the pollers can receive the next one while the delete call runs.
func (d *delivery) Ack(ctx context.Context) error {
	err := d.st.delete(ctx, d.handle, d.freeSlot)
	if err == nil {
		d.acked.Store(true)
		d.done()
	}
	return err
}

// Retry makes the message visible again after the delay (whole seconds,
// rounded up, at most 12h).
func (d *delivery) Retry(ctx context.Context, after time.Duration, _ error) error {
	err := d.st.changeVisibility(ctx, d.handle, visibilitySeconds(after))
	if err == nil {
		d.done()
	}
	return err
}

// Extend moves the visibility deadline to until (rounded up to whole
// seconds from now, at most 12h), coalesced with other extensions.
func (d *delivery) Extend(ctx context.Context, until time.Time) error {
	now := d.now()
	secs := visibilitySeconds(until.Sub(now))
	if secs == 0 {
		return fault.ErrInvalidConfig.WithMessage("sqs: Extend to a time already past")
	}
	if err := d.st.extends.do(ctx, receipt{handle: d.handle, vis: secs}); err != nil {
		return err
	}
	d.lease.Store(now.Add(time.Duration(secs) * time.Second).UnixNano())
	return nil
}

// LeaseUntil returns when the message becomes visible to other consumers.
func (d *delivery) LeaseUntil() time.Time { return time.Unix(0, d.lease.Load()) }

// RedeliveryCount is ApproximateReceiveCount less one.
func (d *delivery) RedeliveryCount() (int, bool) {
	if d.received == 0 {
		return 0, false
	}
	return d.received - 1, true
}

// DeliveryKey is the SQS message ID, which no producer chooses.
func (d *delivery) DeliveryKey() string { return d.msgID }

// Settled frees the delivery's in-flight slot however the runtime ended it.
func (d *delivery) Settled(ports.Settlement) { d.done() }

// done frees the slot, if that was not done yet, and marks the delivery
// done with.
func (d *delivery) done() {
	d.freeSlot()
	if d.settled != nil {
		d.finished.Do(func() { close(d.settled) })
	}
}

// freeSlot gives the in-flight slot back, once.
func (d *delivery) freeSlot() { d.freed.Do(d.release) }
