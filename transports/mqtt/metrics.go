package mqtt

import "github.com/gobridge-oss/gobridge/core/telemetry"

// sessionMetrics are a session's instruments, bound to its name.
type sessionMetrics struct {
	connects    telemetry.Counter
	disconnects telemetry.Counter
	violations  telemetry.Counter
	connected   telemetry.Gauge
	unrouted    telemetry.Counter
	overProps   telemetry.Counter
	// overReceiveMax counts messages that arrived while receive_maximum
	// were unacknowledged (the broker broke its limit).
	overReceiveMax telemetry.Counter
}

func newSessionMetrics(m telemetry.Meter, name string) sessionMetrics {
	l := []string{"session"}
	return sessionMetrics{
		connects: m.Counter(telemetry.Desc{Name: "gobridge_mqtt_connects_total",
			Help: "Connections established, reconnections included.", Labels: l}, name),
		disconnects: m.Counter(telemetry.Desc{Name: "gobridge_mqtt_disconnects_total",
			Help: "Connections lost or closed.", Labels: l}, name),
		violations: m.Counter(telemetry.Desc{Name: "gobridge_mqtt_ingress_violations_total",
			Help: "Packets the ingress guard refused; each ends the session.", Labels: l}, name),
		connected: m.Gauge(telemetry.Desc{Name: "gobridge_mqtt_connected",
			Help: "1 while the session is connected.", Labels: l}, name),
		unrouted: m.Counter(telemetry.Desc{Name: "gobridge_mqtt_unrouted_total",
			Help: "Messages acknowledged and dropped because no receiver's subscription matched their topic.", Labels: l}, name),
		overProps: m.Counter(telemetry.Desc{Name: "gobridge_mqtt_too_many_user_properties_total",
			Help: "Messages acknowledged and dropped for carrying more than max_user_properties.", Labels: l}, name),
		overReceiveMax: m.Counter(telemetry.Desc{Name: "gobridge_mqtt_receive_maximum_exceeded_total",
			Help: "Messages the broker sent beyond receive_maximum unacknowledged ones; reading waited for an acknowledgement.", Labels: l}, name),
	}
}

// receiverMetrics are a receiver's instruments.
type receiverMetrics struct {
	received    telemetry.Counter
	retried     telemetry.Counter
	refused     telemetry.Counter
	qos0Dropped telemetry.Counter
}

func newReceiverMetrics(m telemetry.Meter, name string) receiverMetrics {
	l := []string{"receiver"}
	return receiverMetrics{
		received: m.Counter(telemetry.Desc{Name: "gobridge_mqtt_received_total",
			Help: "Messages handed to the route, in-process redeliveries included.", Labels: l}, name),
		retried: m.Counter(telemetry.Desc{Name: "gobridge_mqtt_retry_holds_total",
			Help: "Messages held in the process for redelivery after a retry.", Labels: l}, name),
		refused: m.Counter(telemetry.Desc{Name: "gobridge_mqtt_retry_refused_total",
			Help: "Retries refused because holding the message would hold back the acknowledgements of later ones.", Labels: l}, name),
		qos0Dropped: m.Counter(telemetry.Desc{Name: "gobridge_mqtt_qos0_dropped_total",
			Help: "QoS 0 messages dropped because qos0_buffer was full.", Labels: l}, name),
	}
}

// senderMetrics are a sender's instruments.
type senderMetrics struct {
	outcome map[string]telemetry.Counter // ok, transient, permanent, rejected, expired
}

func newSenderMetrics(m telemetry.Meter, name string) senderMetrics {
	d := telemetry.Desc{Name: "gobridge_mqtt_publishes_total",
		Help: "Publishes, by outcome.", Labels: []string{"sender", "outcome"}}
	sm := senderMetrics{outcome: map[string]telemetry.Counter{}}
	for _, o := range []string{"ok", "transient", "permanent", "rejected", "expired"} {
		sm.outcome[o] = m.Counter(d, name, o)
	}
	return sm
}
