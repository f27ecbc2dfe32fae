package servicebus

import "github.com/gobridge-oss/gobridge/core/telemetry"

// Settlement outcomes a receiver counts, as metric label values.
const (
	outCompleted    = "completed"
	outAbandoned    = "abandoned"
	outDeadLettered = "dead_lettered"
	outFailed       = "failed" // the settlement did not reach Service Bus
)

// receiverMetrics are a receiver's instruments.
type receiverMetrics struct {
	received  telemetry.Counter
	receives  telemetry.Counter
	settled   map[string]telemetry.Counter
	renewals  telemetry.Counter
	lockLost  telemetry.Counter
	sessions  telemetry.Counter
	sessionUp telemetry.Gauge
}

func newReceiverMetrics(m telemetry.Meter, name string) *receiverMetrics {
	l := []string{"receiver"}
	rm := &receiverMetrics{
		received: m.Counter(telemetry.Desc{Name: "gobridge_servicebus_received_total",
			Help: "Messages received under a peek lock and handed to the route.", Labels: l}, name),
		receives: m.Counter(telemetry.Desc{Name: "gobridge_servicebus_receive_calls_total",
			Help: "Receive calls made (each asks for as many messages as there is room for).", Labels: l}, name),
		renewals: m.Counter(telemetry.Desc{Name: "gobridge_servicebus_lock_renewals_total",
			Help: "Message and session locks renewed.", Labels: l}, name),
		lockLost: m.Counter(telemetry.Desc{Name: "gobridge_servicebus_lock_lost_total",
			Help: "Message or session locks found lost: the message was left for Service Bus to hand out again.", Labels: l}, name),
		sessions: m.Counter(telemetry.Desc{Name: "gobridge_servicebus_sessions_accepted_total",
			Help: "Sessions accepted by a session receiver.", Labels: l}, name),
		sessionUp: m.Gauge(telemetry.Desc{Name: "gobridge_servicebus_sessions_held",
			Help: "Sessions a session receiver holds now.", Labels: l}, name),
		settled: map[string]telemetry.Counter{},
	}
	d := telemetry.Desc{Name: "gobridge_servicebus_settled_total",
		Help:   "Messages settled by the receiver, by outcome: completed, abandoned, dead_lettered, failed.",
		Labels: []string{"receiver", "outcome"}}
	for _, o := range []string{outCompleted, outAbandoned, outDeadLettered, outFailed} {
		rm.settled[o] = m.Counter(d, name, o)
	}
	return rm
}

// senderMetrics are a sender's instruments.
type senderMetrics struct {
	sent    telemetry.Counter
	failed  telemetry.Counter
	batches telemetry.Counter
}

func newSenderMetrics(m telemetry.Meter, name string) *senderMetrics {
	l := []string{"sender"}
	return &senderMetrics{
		sent: m.Counter(telemetry.Desc{Name: "gobridge_servicebus_sent_total",
			Help: "Messages Service Bus accepted.", Labels: l}, name),
		failed: m.Counter(telemetry.Desc{Name: "gobridge_servicebus_send_failed_total",
			Help: "Messages that could not be sent.", Labels: l}, name),
		batches: m.Counter(telemetry.Desc{Name: "gobridge_servicebus_send_calls_total",
			Help: "SendMessageBatch and ScheduleMessages calls made.", Labels: l}, name),
	}
}
