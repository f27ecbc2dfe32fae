package amqp091

import (
	"context"
	"errors"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// consume opens a channel on l, sets the prefetch, declares the retry
// topology when delayed retry is on, and emits deliveries until ctx ends,
// emit refuses one, or the channel closes. progressed is true when at
// least one delivery arrived.
func (r *Receiver) consume(ctx context.Context, l *link, emit ports.EmitFunc) (progressed bool, err error) {
	ch, err := l.conn.Channel()
	if err != nil {
		return false, classify(err, "open consume channel")
	}
	closes := ch.NotifyClose(make(chan *amqp.Error, 1))
	if err := ch.Qos(r.prefetch, 0, false); err != nil {
		_ = ch.Close()
		return false, classify(err, "set prefetch")
	}
	if r.delays != nil {
		if err := declareRetry(ch, r.cfg); err != nil {
			_ = ch.Close()
			return false, err
		}
	}
	args, _ := toTable(r.cfg.ConsumerArguments) // validated
	tag := r.cfg.ConsumerTag
	if tag == "" {
		tag = "gobridge-" + r.o.name + "-" + randomSuffix()
	}
	deliveries, err := ch.Consume(r.cfg.Queue, tag, false, r.cfg.Exclusive, false, false, args)
	if err != nil {
		_ = ch.Close()
		return false, classify(err, "consume "+r.cfg.Queue)
	}
	cc := newConsumeChan(r, ch, tag)
	r.register(cc)
	defer cc.detach()
	for {
		select {
		case d, ok := <-deliveries:
			if !ok {
				return progressed, closeReason(closes)
			}
			progressed = true
			r.m.received.Add(1)
			cc.acker.track(d.DeliveryTag)
			cc.begin()
			del := newDelivery(cc, &d)
			if err := emit(ctx, del); err != nil {
				// The route did not take it: back to the queue at once.
				r.m.requeued.Add(1)
				_ = del.requeue()
				return progressed, nil
			}
		case <-ctx.Done():
			return progressed, nil
		}
	}
}

// closeReason returns why a channel closed, once it has.
func closeReason(closes <-chan *amqp.Error) error {
	select {
	case e, ok := <-closes:
		if ok && e != nil {
			return classify(e, "consume channel closed")
		}
	default:
	}
	return classify(amqp.ErrClosed, "consumer cancelled or channel closed")
}

// errChannelGone is what settling a delivery whose channel closed
// returns: the broker has taken the message back and redelivers it, so
// there is nothing left to settle. It is transient (CONNECTION_LOST) and
// carries errGone, which isChannelGone recognises.
func errChannelGone(cause error) error {
	e := fault.ErrConnectionLost.WithMessage("amqp091: the delivery's channel is closed; the broker redelivers the message")
	if cause != nil {
		return e.Wrap(errors.Join(errGone, cause))
	}
	return e.Wrap(errGone)
}

var errGone = errors.New("consume channel gone")

// isChannelGone reports whether err says that a delivery's channel died.
func isChannelGone(err error) bool { return errors.Is(err, errGone) }
