package mqtt

import (
	"errors"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// RouteFacts are the facts about a direct_hold route that MQTT admission
// looks at.
type RouteFacts struct {
	// RouteID names the route in errors.
	RouteID string
	// HasDLQ is true when the bridge has a DLQ store.
	HasDLQ bool
	// AllowRetryDrop is the route's policy.allow_retry_drop.
	AllowRetryDrop bool
}

// AdmitDirectHold decides whether an MQTT receiver may feed a direct_hold
// route, which holds the broker's delivery until the target accepted the
// message and relies on the broker to send it again after a crash:
//
//   - QoS 1/2 subscriptions need a session that resumes (Resumes: a client
//     id, a session expiry, and clean_start false); otherwise a crash
//     between the send and the acknowledgement loses the message.
//   - QoS 0 subscriptions are admitted as best effort when written
//     explicitly (qos: 0), and only with a DLQ store or allow_retry_drop;
//     an all-QoS-0 receiver may use a session that does not resume.
//
// The distro calls it at config load for every direct_hold route whose
// receiver is an MQTT receiver; shared_outbox routes need no admission.
// Every failed precondition is reported, joined, as INVALID_CONFIG.
func AdmitDirectHold(session SessionConfig, receiver ReceiverConfig, route RouteFacts) error {
	var errs []error
	fail := func(msg string) {
		errs = append(errs, fault.ErrInvalidConfig.WithMessage("routes["+route.RouteID+"]: direct_hold: "+msg))
	}
	zero, reliable := receiver.hasQoS()
	if reliable && !session.Resumes() {
		fail("QoS 1/2 subscriptions need a resuming MQTT session (client_id, session_expiry > 0 and clean_start: false), " +
			"or use delivery_mode: shared_outbox")
	}
	if zero && !route.HasDLQ && !route.AllowRetryDrop {
		fail("QoS 0 subscriptions are best effort and need stores.dlq or policy.allow_retry_drop: true")
	}
	return errors.Join(errs...)
}
