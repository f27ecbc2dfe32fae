package amqp10

import (
	"context"
	"errors"
	"fmt"
	"strings"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// classifyConnErr turns a connection, session or link error into a
// bridge error. Authentication and authorisation failures are permanent;
// everything else on a connection is transient.
func classifyConnErr(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	var ae *amqp.Error
	if errors.As(err, &ae) {
		return conditionError(ae, fault.ErrConnectionLost, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fault.ErrTimeout.Wrap(err)
	}
	return fault.ErrConnectionLost.Wrap(err)
}

// saslRefused recognises go-amqp's error for a SASL outcome other than ok
// (it has no error type of its own, and names PLAIN whatever the
// mechanism). Codes 1 (auth) and 3 (sys-perm) are permanent refusals:
// NOT_AUTHORIZED, naming the configured mechanism. It returns nil for
// any other error, temporary outcomes (2 sys, 4 sys-temp) included.
func saslRefused(mechanism, url string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	i := strings.Index(msg, "auth failed with code ")
	if i < 0 || !strings.HasPrefix(msg, "SASL ") {
		return nil
	}
	code, _, _ := strings.Cut(msg[i+len("auth failed with code "):], ":")
	if code != "0x1" && code != "0x3" {
		return nil
	}
	return fault.ErrNotAuthorized.WithMessage(fmt.Sprintf("amqp10: %s refused SASL %s (outcome code %s)",
		url, strings.ToUpper(mechanism), code)).Wrap(err)
}

// conditionError maps an AMQP error condition; other conditions get def.
func conditionError(ae *amqp.Error, def *fault.BridgeError, cause error) error {
	msg := fmt.Sprintf("amqp10: %s: %s", ae.Condition, ae.Description)
	switch ae.Condition {
	case amqp.ErrCondUnauthorizedAccess:
		return fault.ErrNotAuthorized.WithMessage(msg).Wrap(cause)
	case amqp.ErrCondNotFound:
		return fault.ErrNotFound.WithMessage(msg).Wrap(cause)
	case amqp.ErrCondMessageSizeExceeded:
		return fault.ErrPayloadTooLarge.WithMessage(msg).Wrap(cause)
	case amqp.ErrCondResourceLimitExceeded:
		return fault.ErrBrokerBusy.WithMessage(msg).Wrap(cause)
	case amqp.ErrCondNotAllowed, amqp.ErrCondNotImplemented:
		return fault.ErrForbidden.WithMessage(msg).Wrap(cause)
	case amqp.ErrCondDecodeError, amqp.ErrCondInvalidField:
		return fault.ErrInvalidPayload.WithMessage(msg).Wrap(cause)
	}
	return def.WithMessage(msg).Wrap(cause)
}

// outcomeError maps the peer's outcome of a sent delivery: accepted is
// success, rejected is permanent with the peer's condition, released and
// modified are transient (the peer did not take the message this time).
func outcomeError(state amqp.DeliveryState) error {
	switch st := state.(type) {
	case *amqp.StateAccepted:
		return nil
	case *amqp.StateRejected:
		if st.Error == nil {
			return fault.ErrInvalidPayload.WithMessage("amqp10: the peer rejected the message")
		}
		return conditionError(st.Error, fault.ErrInvalidPayload, st.Error)
	case *amqp.StateReleased:
		return fault.ErrUnavailable.WithMessage("amqp10: the peer released the message")
	case *amqp.StateModified:
		return fault.ErrUnavailable.WithMessage("amqp10: the peer modified the message (not delivered)")
	case nil:
		// Settled by the peer without an outcome: accepted by default.
		return nil
	}
	return fault.ErrProtocolError.WithMessage(fmt.Sprintf("amqp10: unexpected outcome %T", state))
}

// linkError classifies an error of a send or disposition on a link.
func linkError(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return fault.ErrTimeout.WithMessage("amqp10: " + what).Wrap(err)
	}
	var ae *amqp.Error
	if errors.As(err, &ae) {
		return conditionError(ae, fault.ErrConnectionLost, fmt.Errorf("amqp10: %s: %w", what, err))
	}
	return fault.ErrConnectionLost.WithMessage("amqp10: " + what).Wrap(err)
}
