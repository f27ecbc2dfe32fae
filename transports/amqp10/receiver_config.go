package amqp10

import (
	"math"
	"strings"
	"time"
)

// RetryMode says how Delivery.Retry hands a message back to the peer.
type RetryMode string

// Retry modes.
const (
	// RetryModified holds the delivery for the delay the route asked for,
	// then disposes it modified with delivery-failed, so the peer counts
	// the attempt in the message's delivery-count. The default.
	RetryModified RetryMode = "modified"
	// RetryReleased holds the delivery for the delay, then disposes it
	// released: the peer takes it back without counting an attempt.
	RetryReleased RetryMode = "released"
	// RetryOff reports that the receiver cannot retry; the route then
	// dead-letters transient failures (category retry_unsupported).
	RetryOff RetryMode = "off"
)

// PermanentMode says where a message the route gives up on goes.
type PermanentMode string

// Permanent modes.
const (
	// PermanentDLQ leaves it to the route: the bridge's DLQ, then
	// accepted. The default.
	PermanentDLQ PermanentMode = "dlq"
	// PermanentRejected disposes it rejected, with an error condition
	// naming the category, so the peer's own dead-lettering takes it.
	PermanentRejected PermanentMode = "rejected"
)

// Receiver defaults.
const (
	DefaultCredit = 100
	DefaultLinger = 2 * time.Second
)

// ReceiverConfig is the declarative setup of a Receiver, as read from the
// settings of a `type: amqp10` receiver entry.
type ReceiverConfig struct {
	// Address is the source to attach to; required. On RabbitMQ use
	// /amq/queue/NAME for a declared queue.
	Address string `yaml:"address" json:"address"`
	// Credit is the link credit: the most unsettled deliveries the peer
	// may have outstanding (the route's max_in_flight, else 100). Credit
	// is topped up as deliveries are settled.
	Credit int `yaml:"credit" json:"credit"`
	// Retry is modified, released or off (modified). A delivery waiting
	// for its retry delay keeps its credit.
	Retry RetryMode `yaml:"retry" json:"retry"`
	// OnPermanent is dlq or rejected (dlq): where a message the route
	// dead-letters goes. rejected hands it to the peer's own
	// dead-lettering (a dead-letter address configured on the broker)
	// instead of the bridge's DLQ.
	OnPermanent PermanentMode `yaml:"on_permanent" json:"on_permanent"`
	// Linger bounds how long a stopped Run keeps its link so that
	// deliveries still being handled can be settled (2s). Whatever is
	// unsettled then goes back to the peer.
	Linger time.Duration `yaml:"linger" json:"linger"`
}

// WithDefaults returns c with every zero field replaced by its default.
// Credit stays 0 here: NewReceiver resolves it from WithMaxInFlight.
func (c ReceiverConfig) WithDefaults() ReceiverConfig {
	setDefault(&c.Retry, RetryModified)
	setDefault(&c.OnPermanent, PermanentDLQ)
	setDefault(&c.Linger, DefaultLinger)
	return c
}

// Validate reports every problem of c, each naming its field. Call it on
// the result of WithDefaults.
func (c ReceiverConfig) Validate() error {
	var p problems
	switch {
	case c.Address == "":
		p.add("address", "required")
	case c.Address != strings.TrimSpace(c.Address):
		p.add("address", "must not start or end with spaces")
	}
	if c.Credit < 0 || c.Credit > math.MaxInt32 {
		p.add("credit", "must be within [1,%d], or 0 for the route's max_in_flight; got %d", math.MaxInt32, c.Credit)
	}
	switch c.Retry {
	case RetryModified, RetryReleased, RetryOff:
	default:
		p.add("retry", "must be modified, released or off, got %q", c.Retry)
	}
	switch c.OnPermanent {
	case PermanentDLQ, PermanentRejected:
	default:
		p.add("on_permanent", "must be dlq or rejected, got %q", c.OnPermanent)
	}
	if c.Linger < 0 {
		p.add("linger", "must not be negative, got %v", c.Linger)
	}
	return p.err()
}
