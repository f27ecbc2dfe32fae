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
	_ ports.SettleObserver    = (*delivery)(nil)
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
//
// MQTT acknowledges in arrival order, so a held QoS 1/2 message also holds
// back the acknowledgements of every later message on its connection, and
// the broker stops sending once Receive Maximum are unacknowledged. A
// message gets one such hold: when it fails again after an in-process
// redelivery while a later message is settled already (the route makes
// progress without this one), Retry refuses with NOT_SUPPORTED and leaves
// the delivery unsettled: the route ends it as for a source that cannot
// retry (a DLQ entry, or a counted drop under allow_retry_drop) and then
// acknowledges it. Only the first such Retry of a message is refused:
// when the route could not end it either (the DLQ refused the entry), the
// next Retry is accepted, since holding the session is better than losing
// the message.
func (d *delivery) Retry(_ context.Context, after time.Duration, _ error) error {
	if d.settled.Load() {
		return fault.ErrProtocolError.WithMessage("mqtt delivery settled twice")
	}
	if d.m.attempt > 0 && !d.m.refused && d.r.s.acks.blocking(d.m.tok) {
		d.m.refused = true
		d.r.m.refused.Add(1)
		return fault.ErrNotSupported.WithMessage("mqtt: holding the message for another retry would hold back the acknowledgements of later messages on its session")
	}
	if !d.settled.CompareAndSwap(false, true) {
		return fault.ErrProtocolError.WithMessage("mqtt delivery settled twice")
	}
	return d.r.hold(d.m, after)
}

// Settled puts a message the route left unsettled (the route stopped, or
// it could neither store nor hold the message) back at the front of its
// receiver's queue: MQTT acknowledges in order, so a message nobody
// settles would hold back every later acknowledgement of the connection.
// The receiver hands it out again, or, once closed, to its replacement or
// back to the broker (see Receiver.Close).
func (d *delivery) Settled(st ports.Settlement) {
	if st.Outcome != ports.SettledUnsettled || !d.settled.CompareAndSwap(false, true) {
		return
	}
	d.r.requeue(d.m)
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
