package mqtt

import (
	"errors"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// Delivery modes as route configuration names them.
const (
	// ModeDirectHold holds the broker's delivery until the target accepted
	// the message.
	ModeDirectHold = "direct_hold"
	// ModeSharedOutbox acknowledges the broker's delivery once the message
	// is persisted in the outbox.
	ModeSharedOutbox = "shared_outbox"
)

// RouteFacts are the facts about a route fed by an MQTT receiver that
// MQTT admission looks at.
type RouteFacts struct {
	// RouteID names the route in errors.
	RouteID string
	// DeliveryMode is ModeDirectHold (also when empty) or ModeSharedOutbox.
	DeliveryMode string
	// HasDLQ is true when the bridge has a DLQ store.
	HasDLQ bool
	// AllowRetryDrop is the route's policy.allow_retry_drop.
	AllowRetryDrop bool
}

// AdmitRoute decides whether an MQTT receiver may feed a route, in either
// delivery mode:
//
//   - QoS 1/2 subscriptions need a session that resumes (Resumes: a client
//     id, a session expiry, and clean_start false). In direct_hold a
//     message is acknowledged once the target accepted it, in
//     shared_outbox once the outbox persisted it; until then only the
//     broker has it, and a session that ends with the connection forgets
//     it when the process stops.
//   - QoS 1/2 subscriptions also need a DLQ store or allow_retry_drop: a
//     Retry that would hold back the acknowledgements of messages already
//     settled behind it is refused (see Delivery.Retry), and the route then
//     ends the message as for a source that cannot retry.
//   - QoS 0 subscriptions on a direct_hold route are admitted as best
//     effort when written explicitly (qos: 0), and only with a DLQ store or
//     allow_retry_drop. On a shared_outbox route they need neither: once
//     persisted, a QoS 0 message is as safe as any other, and before that
//     no delivery mode can recover it.
//
// An all-QoS-0 receiver may use a session that does not resume. The distro
// calls AdmitRoute at config load for every route whose receiver is an
// MQTT receiver. Every failed precondition is reported, joined, as
// INVALID_CONFIG.
func AdmitRoute(session SessionConfig, receiver ReceiverConfig, route RouteFacts) error {
	mode := route.DeliveryMode
	if mode == "" {
		mode = ModeDirectHold
	}
	var errs []error
	fail := func(msg string) {
		errs = append(errs, fault.ErrInvalidConfig.WithMessage("routes["+route.RouteID+"]: "+mode+": "+msg))
	}
	zero, reliable := receiver.hasQoS()
	if reliable && !session.Resumes() {
		fail("QoS 1/2 subscriptions need a resuming MQTT session (client_id, session_expiry > 0 and clean_start: false) " +
			"in either delivery mode: messages received but not yet acknowledged are lost with a session that ends with the connection")
	}
	if route.HasDLQ || route.AllowRetryDrop {
		return errors.Join(errs...)
	}
	switch {
	case reliable:
		fail("QoS 1/2 subscriptions need stores.dlq or policy.allow_retry_drop: true: a message whose retry would hold back " +
			"the acknowledgements of later ones is not held but ended as from a source that cannot retry")
	case zero && mode == ModeDirectHold:
		fail("QoS 0 subscriptions are best effort and need stores.dlq or policy.allow_retry_drop: true")
	}
	return errors.Join(errs...)
}
