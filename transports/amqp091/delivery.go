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

// delivery is one consumed message. It implements ports.Delivery,
// ports.RedeliveryCounter, ports.AbandonContexter (its context ends when
// its channel closes) and ports.SettleObserver (so that a stopped
// receiver's channel closes as soon as the route let go of everything).
type delivery struct {
	cc      *consumeChan
	raw     amqp.Delivery
	env     messaging.Envelope
	in      inbound
	settled atomic.Bool // Ack or Retry took it
	ended   atomic.Bool // the channel no longer counts it as in the route
}

var (
	_ ports.Delivery          = (*delivery)(nil)
	_ ports.RedeliveryCounter = (*delivery)(nil)
	_ ports.AbandonContexter  = (*delivery)(nil)
	_ ports.SettleObserver    = (*delivery)(nil)
)

func newDelivery(cc *consumeChan, d *amqp.Delivery) *delivery {
	dl := &delivery{cc: cc, raw: *d}
	dl.in = fillEnvelope(&dl.raw, &dl.env, time.Now, cc.r.signer)
	return dl
}

func (d *delivery) Envelope() *messaging.Envelope { return d.in.env }

var errSettled = fault.ErrInternal.WithMessage("delivery already settled")

// AbandonContext ends when the delivery's channel closes (the broker lost
// the connection, closed the channel, or the receiver's linger ran out):
// the broker then redelivers the message, and the runtime stops working
// on this copy of it.
func (d *delivery) AbandonContext() context.Context { return d.cc.life }

// Settled tells the channel that the route let go of the delivery, however
// it ended; a channel whose consumption stopped closes once every delivery
// it handed out has been let go of.
func (d *delivery) Settled(ports.Settlement) { d.finish() }

// finish records, once, that the route let go of the delivery.
func (d *delivery) finish() {
	if d.ended.CompareAndSwap(false, true) {
		d.cc.end()
	}
}

// take claims the delivery for one settlement. On a closed channel it
// returns errChannelGone: the broker has the message back already.
func (d *delivery) take() error {
	if d.cc.life.Err() != nil {
		d.finish()
		return context.Cause(d.cc.life)
	}
	if !d.settled.CompareAndSwap(false, true) {
		return errSettled
	}
	return nil
}

// Ack acknowledges the message. The frame may be coalesced with others
// (see acker), so it can leave after Ack returned; Ack never waits for the
// broker. On a closed channel it returns a CONNECTION_LOST error that
// isChannelGone recognises, and the broker redelivers the message.
func (d *delivery) Ack(context.Context) error {
	if err := d.take(); err != nil {
		return err
	}
	defer d.finish()
	return d.settleFrame(false)
}

// settleFrame hands the ack or nack to the acker, reporting a channel that
// closed meanwhile as errChannelGone.
func (d *delivery) settleFrame(nack bool) error {
	err := d.cc.acker.settle(d.raw.DeliveryTag, nack)
	if err != nil && d.cc.life.Err() != nil {
		return context.Cause(d.cc.life)
	}
	return err
}

// Retry hands the message back: through the retry exchange after roughly
// after (delayed mode), with a nack once after has passed (requeue mode),
// or not at all (off: NOT_SUPPORTED, and the route dead-letters it).
//
// Retry returns when ctx ends, and at once when the delivery's channel is
// closed (errChannelGone): the broker redelivers the message then, and a
// copy published to the wait queue would be a certain duplicate. A retry
// that would let the broker's delivery limit drop the message returns
// NOT_SUPPORTED instead, so that the route dead-letters it (see
// atDeliveryLimit).
func (d *delivery) Retry(ctx context.Context, after time.Duration, _ error) error {
	switch d.cc.r.cfg.Retry.Mode {
	case RetryOff:
		return fault.ErrNotSupported.WithMessage("amqp091 receiver " + d.cc.r.o.name + ": retry is off")
	case RetryRequeue:
		return d.retryRequeue(ctx, after)
	}
	return d.retryDelayed(ctx, after)
}

// retryDelayed publishes a copy to the wait queue nearest to after and
// acknowledges the delivery once the broker confirmed the copy. When the
// copy cannot be published the delivery is requeued at once and the error
// returned; at the delivery limit it is left to the route's DLQ instead.
func (d *delivery) retryDelayed(ctx context.Context, after time.Duration) error {
	r := d.cc.r
	if err := d.take(); err != nil {
		return err
	}
	// A context that already ended publishes no copy: the nack below
	// hands the message back instead.
	err := ctxErr(ctx, "retry")
	if err == nil {
		pctx, cancel := d.cc.bind(ctx)
		err = r.republish(pctx, d, after)
		cancel()
	}
	switch {
	case err == nil:
		defer d.finish()
		r.m.retried[RetryDelayed].Add(1)
		return d.settleFrame(false)
	case d.cc.life.Err() != nil:
		d.finish()
		return context.Cause(d.cc.life)
	case d.atDeliveryLimit():
		d.settled.Store(false) // the route dead-letters it, then acks it
		return d.limitError().Wrap(err)
	}
	defer d.finish()
	_ = d.settleFrame(true)
	return err
}

// requeue nacks the message with requeue at once.
func (d *delivery) requeue() error {
	if err := d.take(); err != nil {
		return err
	}
	defer d.finish()
	return d.settleFrame(true)
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
