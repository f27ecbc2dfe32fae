package amqp091

import (
	"context"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// delivery is one consumed message. It implements ports.Delivery and
// ports.RedeliveryCounter.
type delivery struct {
	cc      *consumeChan
	raw     amqp.Delivery
	env     messaging.Envelope
	in      inbound
	settled atomic.Bool
}

var (
	_ ports.Delivery          = (*delivery)(nil)
	_ ports.RedeliveryCounter = (*delivery)(nil)
)

func newDelivery(cc *consumeChan, d *amqp.Delivery) *delivery {
	dl := &delivery{cc: cc, raw: *d}
	dl.in = fillEnvelope(&dl.raw, &dl.env, time.Now)
	return dl
}

func (d *delivery) Envelope() *messaging.Envelope { return d.in.env }

var errSettled = fault.ErrInternal.WithMessage("delivery already settled")

// Ack acknowledges the message. The frame may be coalesced with others
// (see acker), so it can leave after Ack returned.
func (d *delivery) Ack(context.Context) error {
	if !d.settled.CompareAndSwap(false, true) {
		return errSettled
	}
	defer d.cc.end()
	return d.cc.acker.settle(d.raw.DeliveryTag, false)
}

// Retry hands the message back: through the retry exchange after roughly
// after (delayed mode), at once with a nack (requeue mode), or not at all
// (off: NOT_SUPPORTED, and the route dead-letters it).
//
// In delayed mode the original delivery is acknowledged only once the
// broker confirmed the copy in the wait queue. When the copy cannot be
// published, the delivery is requeued at once instead and the error is
// returned.
func (d *delivery) Retry(ctx context.Context, after time.Duration, _ error) error {
	r := d.cc.r
	switch r.cfg.Retry.Mode {
	case RetryOff:
		return fault.ErrNotSupported.WithMessage("amqp091 receiver " + r.o.name + ": retry is off")
	case RetryRequeue:
		r.m.retried[RetryRequeue].Add(1)
		return d.requeue()
	}
	if !d.settled.CompareAndSwap(false, true) {
		return errSettled
	}
	defer d.cc.end()
	if err := r.republish(ctx, d, after); err != nil {
		_ = d.cc.acker.settle(d.raw.DeliveryTag, true)
		return err
	}
	r.m.retried[RetryDelayed].Add(1)
	return d.cc.acker.settle(d.raw.DeliveryTag, false)
}

// requeue nacks the message with requeue.
func (d *delivery) requeue() error {
	if !d.settled.CompareAndSwap(false, true) {
		return errSettled
	}
	defer d.cc.end()
	return d.cc.acker.settle(d.raw.DeliveryTag, true)
}

// Extend is not supported: AMQP 0-9-1 deliveries have no lease; an
// unacknowledged message stays with the consumer until its channel closes.
func (d *delivery) Extend(context.Context, time.Time) error {
	return fault.ErrNotSupported.WithMessage("amqp091 deliveries have no lease to extend")
}

// RedeliveryCount is the number of earlier deliveries: the retries this
// transport stamped, plus the quorum queue's x-delivery-count. A classic
// queue's redelivered flag adds one (a lower bound: it does not count).
func (d *delivery) RedeliveryCount() (int, bool) {
	n := d.in.retries + d.in.brokerN
	if d.raw.Redelivered && !d.in.hasBrokerN {
		n++
	}
	return n, true
}
