package amqp10

import (
	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// sessionMetrics are a session's instruments.
type sessionMetrics struct {
	up         telemetry.Gauge
	reconnects telemetry.Counter
}

func newSessionMetrics(m telemetry.Meter, name string) sessionMetrics {
	l := []string{"session"}
	return sessionMetrics{
		up: m.Gauge(telemetry.Desc{Name: "gobridge_amqp10_session_up",
			Help: "1 while the session's connection is open.", Labels: l}, name),
		reconnects: m.Counter(telemetry.Desc{Name: "gobridge_amqp10_reconnects_total",
			Help: "Connection attempts after a failure or a lost connection.", Labels: l}, name),
	}
}

// Dispositions a receiver sends, as metric label values.
const (
	dispAccepted = "accepted"
	dispModified = "modified"
	dispReleased = "released"
	dispRejected = "rejected"
	dispFailed   = "failed" // the disposition could not be sent
)

// receiverMetrics are a receiver's instruments.
type receiverMetrics struct {
	received telemetry.Counter
	attaches telemetry.Counter
	disposed map[string]telemetry.Counter
}

func newReceiverMetrics(m telemetry.Meter, name string) receiverMetrics {
	l := []string{"receiver"}
	rm := receiverMetrics{
		received: m.Counter(telemetry.Desc{Name: "gobridge_amqp10_received_total",
			Help: "Deliveries handed to the route.", Labels: l}, name),
		attaches: m.Counter(telemetry.Desc{Name: "gobridge_amqp10_receiver_attaches_total",
			Help: "Receiving links attached, the first one included.", Labels: l}, name),
		disposed: map[string]telemetry.Counter{},
	}
	d := telemetry.Desc{Name: "gobridge_amqp10_dispositions_total",
		Help:   "Deliveries settled by the receiver, by outcome: accepted, modified, released, rejected, failed (not sent).",
		Labels: []string{"receiver", "outcome"}}
	for _, o := range []string{dispAccepted, dispModified, dispReleased, dispRejected, dispFailed} {
		rm.disposed[o] = m.Counter(d, name, o)
	}
	return rm
}

// senderMetrics are a sender's instruments.
type senderMetrics struct {
	outcome map[string]telemetry.Counter
}

func newSenderMetrics(m telemetry.Meter, name string) senderMetrics {
	d := telemetry.Desc{Name: "gobridge_amqp10_sent_total",
		Help:   "Sends by the peer's outcome: accepted, rejected, released, modified, failed (no outcome).",
		Labels: []string{"sender", "outcome"}}
	sm := senderMetrics{outcome: map[string]telemetry.Counter{}}
	for _, o := range []string{"accepted", "rejected", "released", "modified", "failed"} {
		sm.outcome[o] = m.Counter(d, name, o)
	}
	return sm
}

// record counts the outcome of one send; state is nil when none arrived
// (err set) or when the peer settled without one (accepted).
func (sm senderMetrics) record(state amqp.DeliveryState, err error) {
	o := "failed"
	switch state.(type) {
	case *amqp.StateAccepted:
		o = "accepted"
	case *amqp.StateRejected:
		o = "rejected"
	case *amqp.StateReleased:
		o = "released"
	case *amqp.StateModified:
		o = "modified"
	case nil:
		if err == nil {
			o = "accepted"
		}
	}
	sm.outcome[o].Add(1)
}
