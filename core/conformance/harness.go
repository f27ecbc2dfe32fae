package conformance

import (
	"context"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Default timings, used when a Timing field is zero.
const (
	DefaultTimeout    = 10 * time.Second
	DefaultQuiet      = 250 * time.Millisecond
	DefaultStop       = 5 * time.Second
	DefaultRetryDelay = 10 * time.Millisecond
)

// Timing bounds the waits of a suite. Zero fields take the defaults above.
type Timing struct {
	// Timeout bounds each subtest as a whole.
	Timeout time.Duration
	// Quiet is how long a subtest watches for a message that must not
	// arrive. Pick it longer than the target needs to deliver a message.
	Quiet time.Duration
	// Stop is how long Receiver.Run may take to return once its context
	// is cancelled.
	Stop time.Duration
}

func (tm Timing) withDefaults() Timing {
	if tm.Timeout <= 0 {
		tm.Timeout = DefaultTimeout
	}
	if tm.Quiet <= 0 {
		tm.Quiet = DefaultQuiet
	}
	if tm.Stop <= 0 {
		tm.Stop = DefaultStop
	}
	return tm
}

// Received is a message as it arrived at the target, translated back by
// the harness.
type Received struct {
	// Address is where the message arrived. It may be left empty; when
	// set, it must be the address Receive was asked for.
	Address string
	// Subject is the logical subject the target carried (for example the
	// gobridge.subject property).
	Subject string
	Payload []byte
	// Headers may hold entries the suite did not send; only the sent ones
	// are compared. String values may come back as []byte.
	Headers map[string]any
}

// Target is the far side of a sender: where its messages land and how the
// suite observes them.
type Target struct {
	// Addresses are valid, distinct destinations. Most subtests use the
	// first; routing subtests need two and are skipped with fewer.
	Addresses []string
	// Receive returns the next message that arrived at address, in arrival
	// order, blocking until one does or ctx ends (it then returns an
	// error). Everything sent after the harness was built must be
	// observable, so subscribe before returning the harness.
	Receive func(ctx context.Context, address string) (Received, error)
	// Close, when set, releases the harness. The suite calls it when the
	// subtest ends, possibly after it closed the sender itself.
	Close func(ctx context.Context) error
	Timing
}

// SenderHarness is what RunSender needs for one subtest.
type SenderHarness struct {
	Sender ports.Sender
	Target
	// EmptyAddressOK declares that Send with an empty address succeeds by
	// using the sender's configured default destination; when false, such
	// a Send must fail. DefaultAddress, when set, is where the target
	// receives a message sent with an empty address.
	EmptyAddressOK bool
	DefaultAddress string
}

// BatchSenderHarness is what RunBatchSender needs for one subtest.
type BatchSenderHarness struct {
	Sender ports.BatchSender
	Target
	// Spoil, when set, returns a variant of msg that the target refuses on
	// its own while accepting the other messages of the same batch (an
	// oversized payload, a forbidden address...). The isolation subtest is
	// skipped without it.
	Spoil func(msg ports.OutboundMessage) ports.OutboundMessage
}

// ReceiverHarness is what RunReceiver needs for one subtest.
type ReceiverHarness struct {
	Receiver ports.Receiver
	// Publish makes env available at the source the Receiver reads, as a
	// producer would. It must return once the source accepted the message,
	// without waiting for the bridge to settle it, and messages published
	// before Run starts must be delivered once it does.
	Publish func(ctx context.Context, env *messaging.Envelope) error
	// Restart, when set, runs between two Runs in the subtests about
	// deliveries left unsettled. It must make the source treat them as a
	// crashed consumer's (for instance by closing the consumer's
	// connection) so that the next Run sees them again. Without it, the
	// next Run starts straight away.
	Restart func(ctx context.Context) error
	// RetryDelay is the delay passed to Delivery.Retry; zero means
	// DefaultRetryDelay. Sources with coarse timers need a larger value
	// and a Timeout to match.
	RetryDelay time.Duration
	// Close, when set, releases the harness when the subtest ends.
	Close func(ctx context.Context) error
	Timing
}
