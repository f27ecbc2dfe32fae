package amqp091

import "github.com/gobridge-oss/gobridge/core/telemetry"

// sessionMetrics are a session's instruments.
type sessionMetrics struct {
	up         telemetry.Gauge
	reconnects telemetry.Counter
}

func newSessionMetrics(m telemetry.Meter, name string) sessionMetrics {
	l := []string{"session"}
	return sessionMetrics{
		up: m.Gauge(telemetry.Desc{Name: "gobridge_amqp091_session_up",
			Help: "1 while the session's connection is open.", Labels: l}, name),
		reconnects: m.Counter(telemetry.Desc{Name: "gobridge_amqp091_reconnects_total",
			Help: "Connection attempts after a failure or a lost connection.", Labels: l}, name),
	}
}

// receiverMetrics are a receiver's instruments.
type receiverMetrics struct {
	received  telemetry.Counter
	ackFrames telemetry.Counter
	retried   map[RetryMode]telemetry.Counter
	requeued  telemetry.Counter
}

func newReceiverMetrics(m telemetry.Meter, name string) receiverMetrics {
	l := []string{"receiver"}
	rm := receiverMetrics{
		received: m.Counter(telemetry.Desc{Name: "gobridge_amqp091_received_total",
			Help: "Deliveries handed to the route.", Labels: l}, name),
		ackFrames: m.Counter(telemetry.Desc{Name: "gobridge_amqp091_ack_frames_total",
			Help: "basic.ack frames sent; fewer than acked messages when runs are coalesced.", Labels: l}, name),
		requeued: m.Counter(telemetry.Desc{Name: "gobridge_amqp091_requeued_total",
			Help: "Deliveries nacked with requeue because the route did not take them.", Labels: l}, name),
		retried: map[RetryMode]telemetry.Counter{},
	}
	rd := telemetry.Desc{Name: "gobridge_amqp091_retries_total",
		Help: "Deliveries handed back by Retry, by mode.", Labels: []string{"receiver", "mode"}}
	for _, mode := range []RetryMode{RetryDelayed, RetryRequeue} {
		rm.retried[mode] = m.Counter(rd, name, string(mode))
	}
	return rm
}

// senderMetrics are a sender's instruments.
type senderMetrics struct {
	outcome map[string]telemetry.Counter // ok, returned, nacked, failed
}

func newSenderMetrics(m telemetry.Meter, name string) senderMetrics {
	d := telemetry.Desc{Name: "gobridge_amqp091_published_total",
		Help: "Publishes by outcome: ok (confirmed), returned (unroutable), nacked, failed.", Labels: []string{"sender", "outcome"}}
	sm := senderMetrics{outcome: map[string]telemetry.Counter{}}
	for _, o := range []string{"ok", "returned", "nacked", "failed"} {
		sm.outcome[o] = m.Counter(d, name, o)
	}
	return sm
}

func (sm senderMetrics) record(err error) {
	switch {
	case err == nil:
		sm.outcome["ok"].Add(1)
	case isReturned(err):
		sm.outcome["returned"].Add(1)
	case isNacked(err):
		sm.outcome["nacked"].Add(1)
	default:
		sm.outcome["failed"].Add(1)
	}
}
