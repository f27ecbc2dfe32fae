package amqp091

import (
	"context"
	"errors"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// classify turns an error from the broker or the client library into a
// fault error, keeping the cause: access refused and not-allowed are
// permanent (FORBIDDEN, NOT_AUTHORIZED), a missing exchange or queue is
// permanent NOT_FOUND, and everything else about a connection or channel
// going away is transient.
func classify(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return fault.ErrTimeout.WithMessage(what + ": timed out").Wrap(err)
	case errors.Is(err, context.Canceled):
		return fault.ErrUnavailable.WithMessage(what + ": cancelled").Wrap(err)
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	if errors.Is(err, amqp.ErrCredentials) || errors.Is(err, amqp.ErrSASL) {
		return fault.ErrNotAuthorized.WithMessage(what + ": authentication failed").Wrap(err)
	}
	var ae *amqp.Error
	if errors.As(err, &ae) {
		switch ae.Code {
		case amqp.AccessRefused:
			return fault.ErrForbidden.WithMessage(what + ": access refused").Wrap(err)
		case amqp.NotFound:
			return fault.ErrNotFound.WithMessage(what + ": not found").Wrap(err)
		case amqp.NotAllowed:
			return fault.ErrNotAuthorized.WithMessage(what + ": not allowed").Wrap(err)
		case amqp.ResourceError:
			return fault.ErrBrokerBusy.WithMessage(what + ": broker out of resources").Wrap(err)
		}
	}
	return fault.ErrConnectionLost.WithMessage(what).Wrap(err)
}

// errClosed is the error of a component used after Close, as ports.Closer
// prescribes.
func errClosed(what string) error {
	return fault.ErrUnavailable.WithMessage(what + " is closed")
}

// ctxErr returns a transient error when ctx has ended, else nil.
func ctxErr(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		return classify(err, what)
	}
	return nil
}
