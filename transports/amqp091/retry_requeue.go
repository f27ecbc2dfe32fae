package amqp091

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// retryRequeue holds the delivery for after (the route's backoff) and then
// nacks it with requeue. The hold ends early, with the nack sent at once,
// when ctx ends or the receiver's consumption stops; it ends with
// errChannelGone when the channel closes (the broker has the message back
// already). The held message counts against the prefetch.
func (d *delivery) retryRequeue(ctx context.Context, after time.Duration) error {
	r := d.cc.r
	if d.atDeliveryLimit() {
		return d.limitError()
	}
	if err := d.take(); err != nil {
		return err
	}
	defer d.finish()
	if after > 0 {
		t := time.NewTimer(after)
		select {
		case <-t.C:
		case <-ctx.Done():
		case <-d.cc.stopping:
		case <-d.cc.life.Done():
		}
		t.Stop()
	}
	if err := d.settleFrame(true); err != nil {
		return err
	}
	r.m.retried[RetryRequeue].Add(1)
	return nil
}

// atDeliveryLimit reports whether one more return of this delivery to the
// queue could make the broker drop it: the queue has a delivery limit L
// and the message was already returned L-1 times. RabbitMQ (3.10, as
// tested) counts every return (a nack with requeue, and a channel that
// closed with the message unacknowledged), and drops or dead-letters the
// message once the count exceeds L. Stopping one return short leaves room for a delivery that the
// bridge abandons (shutdown, lost connection) to come back once more.
func (d *delivery) atDeliveryLimit() bool {
	limit := d.cc.r.deliveryLimit
	return limit > 0 && d.in.brokerN >= limit-1
}

// limitError is Retry's NOT_SUPPORTED answer at the delivery limit.
func (d *delivery) limitError() *fault.BridgeError {
	r := d.cc.r
	return fault.ErrNotSupported.WithMessage(fmt.Sprintf(
		"amqp091 receiver %s: the message was returned to %s %d times and the queue's delivery limit is %d; "+
			"it is dead-lettered by the bridge rather than requeued for the broker to drop",
		r.o.name, r.cfg.Queue, d.in.brokerN, r.deliveryLimit))
}

// queueDeliveryLimit is the x-delivery-limit the receiver's queue is
// declared with in the session topology (arguments win over the
// delivery_limit shorthand), else the receiver's own delivery_limit
// setting, else 0 (none known).
func queueDeliveryLimit(topo Topology, cfg ReceiverConfig) int {
	for _, q := range topo.Queues {
		if q.Name != cfg.Queue {
			continue
		}
		if v, ok := q.Arguments["x-delivery-limit"]; ok {
			if n, ok := limitValue(v); ok {
				return n
			}
		}
		if q.DeliveryLimit > 0 {
			return q.DeliveryLimit
		}
	}
	return cfg.DeliveryLimit
}

// limitValue reads a delivery limit from a YAML or Go argument value.
func limitValue(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int32:
		return int(n), true
	case int64:
		return int(n), true
	case float64:
		return int(n), true
	case string:
		i, err := strconv.Atoi(n)
		return i, err == nil
	}
	return 0, false
}
