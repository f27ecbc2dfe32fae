package mqtt

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// delivery is one hand-over of a received message to the route.
type delivery struct {
	r       *Receiver
	m       *inbound
	env     *messaging.Envelope
	settled atomic.Bool
}

var (
	_ ports.Delivery          = (*delivery)(nil)
	_ ports.RedeliveryCounter = (*delivery)(nil)
)

// Envelope returns the message.
func (d *delivery) Envelope() *messaging.Envelope { return d.env }

// Ack acknowledges the message to the broker (PUBACK for QoS 1, PUBREC
// for QoS 2) once every earlier message of the connection is settled. A
// message that arrived on a connection since lost is not acknowledged: the
// broker redelivers it when the session resumes.
func (d *delivery) Ack(context.Context) error {
	if !d.settled.CompareAndSwap(false, true) {
		return fault.ErrProtocolError.WithMessage("mqtt delivery settled twice")
	}
	d.r.s.acks.settle(d.m.tok)
	return nil
}

// Retry holds the message in the process and hands it to the route again
// after the delay. It stays unacknowledged meanwhile, so a crash loses
// nothing on a resumed session.
func (d *delivery) Retry(_ context.Context, after time.Duration, _ error) error {
	if !d.settled.CompareAndSwap(false, true) {
		return fault.ErrProtocolError.WithMessage("mqtt delivery settled twice")
	}
	return d.r.hold(d.m, after)
}

// Extend is not supported: nothing else can take the message meanwhile.
func (d *delivery) Extend(context.Context, time.Time) error {
	return fault.ErrNotSupported.WithMessage("mqtt deliveries have no lease to extend")
}

// RedeliveryCount is the number of in-process redeliveries, plus one when
// the broker flagged the message as a duplicate (it came back with a
// resumed session).
func (d *delivery) RedeliveryCount() (int, bool) {
	n := d.m.attempt
	if d.m.pub.Duplicate() {
		n++
	}
	return n, true
}
