package servicebus

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// serverBusyRetryAfter is the pause a busy or throttling namespace
// suggests to the route: Service Bus asks clients to wait about 10s
// after a server-busy answer.
const serverBusyRetryAfter = 10 * time.Second

// quotaRetryAfter is the pause suggested when an entity is full.
const quotaRetryAfter = 5 * time.Second

// errLockLost is the fault of a settlement or renewal whose message (or
// session) lock had already expired: the message goes to another
// receiver, or back to this one, with its delivery count raised.
var errLockLost = fault.ErrUnavailable.WithMessage("servicebus: the lock on the message was lost")

// classify maps an SDK error to a fault class and code. op names the call.
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	msg := "servicebus: " + op
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fault.ErrTimeout.WithMessage(msg + " timed out").Wrap(err)
	case errors.Is(err, context.Canceled):
		return fault.ErrUnavailable.WithMessage(msg + " cancelled").Wrap(err)
	case errors.Is(err, azservicebus.ErrMessageTooLarge):
		return fault.ErrPayloadTooLarge.WithMessage(msg + ": message too large").Wrap(err)
	}
	var ae *amqp.Error
	if errors.As(err, &ae) {
		if f := classifyCondition(msg, ae.Condition, err); f != nil {
			return f
		}
	}
	var se *azservicebus.Error
	if errors.As(err, &se) {
		switch se.Code {
		case azservicebus.CodeLockLost:
			return errLockLost.WithMessage(msg + ": lock lost").Wrap(err)
		case azservicebus.CodeConnectionLost:
			return fault.ErrConnectionLost.WithMessage(msg + ": connection lost").Wrap(err)
		case azservicebus.CodeTimeout:
			return fault.ErrTimeout.WithMessage(msg + ": service timeout").Wrap(err)
		case azservicebus.CodeNotFound:
			return fault.ErrNotFound.WithMessage(msg + ": entity not found").Wrap(err)
		case azservicebus.CodeUnauthorizedAccess:
			return fault.ErrNotAuthorized.WithMessage(msg + ": unauthorized").Wrap(err)
		case azservicebus.CodeClosed:
			return fault.ErrUnavailable.WithMessage(msg + ": closed").Wrap(err)
		}
	}
	var (
		ce *amqp.ConnError
		le *amqp.LinkError
		ss *amqp.SessionError
		ne net.Error
	)
	if errors.As(err, &ce) || errors.As(err, &le) || errors.As(err, &ss) || errors.As(err, &ne) {
		return fault.ErrConnectionLost.WithMessage(msg + ": connection").Wrap(err)
	}
	return fault.ErrUnavailable.WithMessage(msg).Wrap(err)
}

// classifyCondition maps an AMQP error condition Service Bus answered
// with; nil for conditions left to the SDK's error code.
func classifyCondition(msg string, c amqp.ErrCond, err error) error {
	m := msg + ": " + string(c)
	switch c {
	case "com.microsoft:server-busy":
		return fault.ErrBrokerBusy.WithMessage(m).WithRetryAfter(serverBusyRetryAfter).Wrap(err)
	case amqp.ErrCondResourceLimitExceeded, "com.microsoft:quota-exceeded":
		return fault.ErrThrottled.WithMessage(m).WithRetryAfter(quotaRetryAfter).Wrap(err)
	case "com.microsoft:message-lock-lost", "com.microsoft:session-lock-lost":
		return errLockLost.WithMessage(m).Wrap(err)
	case amqp.ErrCondNotFound, "com.microsoft:entity-disabled", "com.microsoft:entity-not-found":
		return fault.ErrNotFound.WithMessage(m).Wrap(err)
	case amqp.ErrCondUnauthorizedAccess:
		return fault.ErrNotAuthorized.WithMessage(m).Wrap(err)
	case amqp.ErrCondMessageSizeExceeded:
		return fault.ErrPayloadTooLarge.WithMessage(m).Wrap(err)
	case "com.microsoft:timeout", "com.microsoft:operation-cancelled":
		return fault.ErrTimeout.WithMessage(m).Wrap(err)
	case "com.microsoft:session-cannot-be-locked":
		return fault.ErrUnavailable.WithMessage(m).Wrap(err)
	case amqp.ErrCondNotAllowed, amqp.ErrCondInvalidField, amqp.ErrCondDecodeError,
		"com.microsoft:argument-error", "com.microsoft:argument-out-of-range":
		return fault.ErrInvalidPayload.WithMessage(m).Wrap(err)
	case amqp.ErrCondNotImplemented:
		return fault.ErrNotSupported.WithMessage(m).Wrap(err)
	}
	return nil
}

// lockLost reports whether err, as the SDK returned it or as classify
// wrapped it, says that a message or session lock was lost.
func lockLost(err error) bool {
	var se *azservicebus.Error
	if errors.As(err, &se) && se.Code == azservicebus.CodeLockLost {
		return true
	}
	var ae *amqp.Error
	return errors.As(err, &ae) && (ae.Condition == "com.microsoft:message-lock-lost" || ae.Condition == "com.microsoft:session-lock-lost")
}
