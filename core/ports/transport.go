package ports

import (
	"context"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// EmitFunc hands a delivery to the route. It may block while the route is at
// its in-flight limit (that is the back-pressure a receiver feels). A nil
// return means the route has taken ownership and will settle the delivery.
// An error (typically because ctx ended or the route is stopping) means the
// route did not take it: the receiver must leave it unsettled so the source
// redelivers it.
type EmitFunc func(ctx context.Context, d Delivery) error

// Receiver reads deliveries from a transport.
//
// Run blocks, calling emit for each delivery, until ctx is cancelled (it
// then returns nil or ctx.Err()) or an unrecoverable error occurs. Run may
// call emit from several goroutines at once, but none may call it after Run
// returned.
type Receiver interface {
	Run(ctx context.Context, emit EmitFunc) error
}

// ReceiverCapabilities describes what a source can do with a message the
// bridge did not manage to deliver.
type ReceiverCapabilities struct {
	// Retry is true when Delivery.Retry can bring the message back after a
	// delay. When false, a transient failure goes to the DLQ (category
	// retry_unsupported) or, without a DLQ, needs allow_retry_drop.
	Retry bool
	// RedeliversUnsettled is true when a delivery the bridge never settled
	// (crash, shutdown) comes back from the source on its own.
	RedeliversUnsettled bool
	// CallerWaits is true when the receiver calls emit on a goroutine of
	// its own for each delivery and that goroutine only waits for the
	// settlement afterwards (an HTTP handler, say). The runtime may then
	// handle the delivery on the calling goroutine, still within the
	// route's in-flight limit, instead of handing it to a worker: emit
	// returns once the delivery is settled, saving two goroutine switches
	// per message.
	CallerWaits bool
}

// CapabilityReporter is implemented by receivers that know their
// capabilities. A receiver that does not implement it is assumed to support
// both retry and redelivery.
type CapabilityReporter interface {
	Capabilities() ReceiverCapabilities
}

// OutboundMessage is what a sender transmits: the envelope and, beside it,
// the transport address chosen for this dispatch (topic, routing key, queue,
// channel...). The address never travels inside Envelope.Subject.
//
// Senders must treat Envelope as read-only: the runtime may hand the same
// envelope to several senders.
type OutboundMessage struct {
	Envelope *messaging.Envelope
	Address  string
	// NotBefore, when not zero, asks the target to make the message
	// visible to its consumers no earlier than this instant (SQS delay
	// seconds, Service Bus scheduled enqueue time). A sender whose target
	// cannot delay a message refuses a non-zero NotBefore with a permanent
	// NOT_SUPPORTED fault rather than sending it early. The runtime sets it
	// from the binding's deliver_after setting.
	NotBefore time.Time
}

// Delayer is implemented by senders whose target can hold a message back
// from its consumers (OutboundMessage.NotBefore). A route whose binding
// asks for a delay is refused at start unless its sender is a Delayer
// whose limit for the binding's address covers the delay.
type Delayer interface {
	// DelayLimit returns the longest delay, counted from the send, that
	// messages to address accept (zero: no limit), or an error saying why
	// they cannot be delayed at all (an SQS FIFO queue, say). An empty
	// address stands for the sender's default destination.
	DelayLimit(address string) (time.Duration, error)
}

// Sender transmits one message. A nil return means the target accepted it
// (for brokers: confirmed). Errors are classified with core/fault: a
// transient error makes the route retry; a permanent one sends the message to
// the DLQ. Send must honour ctx cancellation and deadlines.
type Sender interface {
	Send(ctx context.Context, msg OutboundMessage) error
}

// BatchResult is the outcome of one message of a batch. Index refers to the
// position in the input slice.
type BatchResult struct {
	Index int
	Err   error
}

// BatchSender transmits several messages in one go.
//
// SendBatch returns exactly one result per input message, in input order
// (results[i].Index == i). A non-nil top-level error is reserved for a
// failure of the whole batch before anything was sent (no connection,
// pre-validation refusing the batch); it comes with nil results.
type BatchSender interface {
	Sender
	SendBatch(ctx context.Context, msgs []OutboundMessage) ([]BatchResult, error)
}

// Closer is implemented by senders and receivers that hold resources. After
// Close, Send must return an error (transient, code UNAVAILABLE) rather than
// panic or silently drop the message.
type Closer interface {
	Close(ctx context.Context) error
}
