package memtransport

import (
	"context"
	"errors"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// The errors below are derived once from the shared sentinels and never
// modified, so returning them does not allocate. Match them with
// errors.Is against the fault sentinel they derive from.
var (
	errAlreadySettled = fault.ErrProtocolError.WithMessage("delivery already settled")
	errStale          = fault.ErrConnectionLost.WithMessage("memtransport: delivery is stale: its message was requeued or refused")
	errNoRetry        = fault.ErrNotSupported.WithMessage("memtransport: retry disabled by Options.NoRetry")
	errClosed         = fault.ErrUnavailable.WithMessage("memtransport: closed")
	errNilEnvelope    = fault.ErrInvalidPayload.WithMessage("memtransport: nil envelope")
)

// ctxError turns a context error into a transient fault that still
// matches the original with errors.Is.
func ctxError(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fault.ErrTimeout.Wrap(err)
	}
	return fault.ErrUnavailable.WithMessage("memtransport: cancelled").Wrap(err)
}

// signal wakes one waiter of a one-slot notification channel without
// blocking. A wake-up that nobody takes stays in the slot, so a waiter
// that checks its condition and then selects cannot miss it.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
