package ports

import (
	"context"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// Delivery is one unit of work handed over by a receiver: an envelope plus
// the means to settle it with the source.
//
// The runtime settles a delivery at most once, with Ack or Retry. A delivery
// that is never settled (the bridge shut down while handling it) must be
// redelivered by the source where the transport can do so. Extend may be
// called any number of times before settlement.
//
// The envelope returned by Envelope belongs to the runtime while the
// delivery is being handled: the runtime may add or remove headers on it.
type Delivery interface {
	// Envelope returns the wrapped message. It returns the same pointer on
	// every call.
	Envelope() *messaging.Envelope
	// Ack tells the source the message was handled and must not come back.
	Ack(ctx context.Context) error
	// Retry asks the source to deliver the message again after the given
	// delay. reason explains why; transports may report it. A source that
	// cannot redeliver returns an error whose code is NOT_SUPPORTED, and
	// the runtime falls back to its dead-letter policy.
	Retry(ctx context.Context, after time.Duration, reason error) error
	// Extend asks the source to keep the message invisible to others until
	// the given instant. Sources without such a lease return NOT_SUPPORTED.
	Extend(ctx context.Context, until time.Time) error
}

// RedeliveryCounter is implemented by deliveries whose source counts
// redeliveries (SQS receive count, AMQP delivery-count, ...). The count is
// the number of earlier deliveries of the same message: 0 the first time.
// ok is false when the source did not supply a count for this message.
type RedeliveryCounter interface {
	RedeliveryCount() (n int, ok bool)
}

// Abandoner is implemented by deliveries whose source can give up on them
// while they are being handled, such as an HTTP request whose client
// disconnected. When the channel closes, the runtime stops working on the
// delivery and leaves it unsettled.
type Abandoner interface {
	Abandoned() <-chan struct{}
}

// AbandonContexter is an optional, cheaper form of Abandoner for sources
// whose abandonment is a context ending (an HTTP request's context): the
// runtime can then follow it without a watcher goroutine per delivery.
type AbandonContexter interface {
	AbandonContext() context.Context
}

// DeliveryKeyer is implemented by deliveries whose source gives every
// message an identity of its own that survives redelivery and that no
// producer can choose (an SQS receipt's message id, a Service Bus sequence
// number). The runtime keys a message's retry progress by it. Without it,
// the runtime keys the progress by the message ID together with a hash of
// the subject and payload as received, so that two different messages
// under one producer-chosen ID never share progress.
type DeliveryKeyer interface {
	DeliveryKey() string
}

// Rejecter is implemented by deliveries whose source can dead-letter a
// message itself (AMQP 1.0 `rejected`, towards a broker-side dead-letter
// address) and is configured to. When the outcome of a message is a
// dead-letter, the runtime calls Reject instead of writing its own DLQ and
// acknowledging. Reject returns an error with code NOT_SUPPORTED when this
// delivery's source is not configured for it: the runtime then writes its
// DLQ and acknowledges as usual. Any other error leaves the delivery with
// its source, which redelivers it.
type Rejecter interface {
	Reject(ctx context.Context, category DLQCategory, reason error) error
}
