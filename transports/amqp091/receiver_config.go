package amqp091

import (
	"fmt"
	"slices"
	"time"
)

// RetryMode says how Delivery.Retry hands a message back to the broker.
type RetryMode string

// Retry modes.
const (
	// RetryDelayed republishes the message to the queue's retry exchange,
	// whose TTL'd wait queues dead-letter it back to the queue after the
	// delay. The default.
	RetryDelayed RetryMode = "delayed"
	// RetryRequeue holds the message for the delay the route asked for
	// and then nacks it with requeue. A held message counts against the
	// prefetch.
	RetryRequeue RetryMode = "requeue"
	// RetryOff reports that the receiver cannot retry; the route then
	// dead-letters transient failures (category retry_unsupported).
	RetryOff RetryMode = "off"
)

// Receiver defaults.
const (
	DefaultPrefetch        = 100
	DefaultLinger          = 30 * time.Second
	DefaultAckHold         = 20 * time.Millisecond
	DefaultRetryWaitPrefix = ".retry."
	DefaultRetryExchange   = ".retry"
)

// DefaultRetryDelays are the wait queues declared for delayed retry. They
// follow the route's default backoff ladder (1s, doubling, capped at 30s)
// and go on to 15 minutes, the default replay budget.
func DefaultRetryDelays() []time.Duration {
	return []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
		16 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute, 15 * time.Minute}
}

// ReceiverConfig is the declarative setup of a Receiver, as read from the
// settings of a `type: amqp091` receiver entry.
type ReceiverConfig struct {
	// Queue to consume; required. Declare it in the session's topology or
	// elsewhere.
	Queue string `yaml:"queue" json:"queue"`
	// ConsumerTag names the consumer on the broker (generated).
	ConsumerTag string `yaml:"consumer_tag" json:"consumer_tag"`
	// Prefetch is how many unacknowledged messages the broker may hand
	// over at once (the route's max_in_flight, else 100; at most 65535).
	Prefetch int `yaml:"prefetch" json:"prefetch"`
	// Exclusive asks to be the queue's only consumer (false).
	Exclusive bool `yaml:"exclusive" json:"exclusive"`
	// ConsumerArguments are passed to basic.consume (for example
	// x-priority).
	ConsumerArguments map[string]any `yaml:"consumer_arguments" json:"consumer_arguments"`
	// Linger bounds how long a stopped Run keeps its channel open so that
	// deliveries still being handled can be acknowledged. Zero follows the
	// bridge's stop timeout (Receiver.SetStopTimeout), else 30s; a value
	// longer than the stop timeout is cut to it. Whatever is unsettled
	// then goes back to the queue.
	Linger time.Duration `yaml:"linger" json:"linger"`
	// AckCoalescing acknowledges runs of consecutive deliveries with one
	// multiple ack (true). Off, every ack is its own frame.
	AckCoalescing *bool `yaml:"ack_coalescing" json:"ack_coalescing"`
	// AckHold bounds how long finished deliveries wait for an older one
	// still being handled so that their acks can join a run (20ms); after
	// that they are acked one by one.
	AckHold time.Duration `yaml:"ack_hold" json:"ack_hold"`
	// Retry configures Delivery.Retry.
	Retry RetryConfig `yaml:"retry" json:"retry"`
	// DeliveryLimit is the queue's broker-side delivery limit
	// (x-delivery-limit of a quorum queue) when it is set outside the
	// session topology, for example by a policy. The topology's value wins.
	// Retry then hands a message to the route's DLQ before the broker
	// would drop it (0: none known).
	DeliveryLimit int `yaml:"delivery_limit" json:"delivery_limit"`
}

// minSigningKey is the shortest retry.signing_key accepted.
const minSigningKey = 16

// RetryConfig configures how a receiver retries a message.
type RetryConfig struct {
	// Mode is delayed, requeue or off (delayed).
	Mode RetryMode `yaml:"mode" json:"mode"`
	// Exchange is the retry exchange (<queue>.retry).
	Exchange string `yaml:"exchange" json:"exchange"`
	// QueuePrefix starts the name of each wait queue; the delay follows
	// (<queue>.retry.1s, ...).
	QueuePrefix string `yaml:"queue_prefix" json:"queue_prefix"`
	// Delays are the wait queues' TTLs (DefaultRetryDelays). A retry waits
	// in the queue whose delay is nearest to the one the route asked for
	// (by ratio), so keep the list close to the route's backoff ladder.
	Delays []time.Duration `yaml:"delays" json:"delays"`
	// QuorumWaitQueues declares the wait queues as quorum queues (false:
	// durable classic queues).
	QuorumWaitQueues bool `yaml:"quorum_wait_queues" json:"quorum_wait_queues"`
	// SigningKey signs the retry headers of the copies handed to the wait
	// queues (at least 16 characters). Without it the key is derived from
	// the password of the session URL (a random key per receiver when the
	// URL has none). Every process consuming the queue needs the same key.
	SigningKey string `yaml:"signing_key" json:"signing_key" secret:"true"`
}

// WithDefaults returns c with every zero field replaced by its default.
// Prefetch and Linger stay 0 here: NewReceiver resolves them from
// WithMaxInFlight and the stop timeout.
func (c ReceiverConfig) WithDefaults() ReceiverConfig {
	setDefault(&c.AckHold, DefaultAckHold)
	if c.AckCoalescing == nil {
		t := true
		c.AckCoalescing = &t
	}
	setDefault(&c.Retry.Mode, RetryDelayed)
	if c.Retry.Exchange == "" && c.Queue != "" {
		c.Retry.Exchange = c.Queue + DefaultRetryExchange
	}
	if c.Retry.QueuePrefix == "" && c.Queue != "" {
		c.Retry.QueuePrefix = c.Queue + DefaultRetryWaitPrefix
	}
	if len(c.Retry.Delays) == 0 {
		c.Retry.Delays = DefaultRetryDelays()
	}
	c.Retry.Delays = slices.Clone(c.Retry.Delays)
	slices.Sort(c.Retry.Delays)
	c.Retry.Delays = slices.Compact(c.Retry.Delays)
	return c
}

// Validate reports every problem with c, after applying the defaults,
// each naming its field, joined into one error.
func (c ReceiverConfig) Validate() error {
	c = c.WithDefaults()
	var ps problems
	if c.Queue == "" {
		ps.add("queue", "is required")
	}
	if c.Prefetch < 0 || c.Prefetch > 65535 {
		ps.add("prefetch", "must be in [0,65535], got %d", c.Prefetch)
	}
	if c.Linger < 0 {
		ps.add("linger", "must not be negative, got %v", c.Linger)
	}
	if c.DeliveryLimit < 0 {
		ps.add("delivery_limit", "must not be negative, got %d", c.DeliveryLimit)
	}
	checkPositive(&ps, "ack_hold", c.AckHold)
	checkArguments(&ps, "consumer_arguments", c.ConsumerArguments)
	switch c.Retry.Mode {
	case RetryDelayed:
		for i, d := range c.Retry.Delays {
			if d < time.Millisecond {
				ps.add(fmt.Sprintf("retry.delays[%d]", i), "must be at least 1ms, got %v", d)
			}
		}
		if n := len(c.Retry.SigningKey); n > 0 && n < minSigningKey {
			ps.add("retry.signing_key", "must be at least %d characters, got %d", minSigningKey, n)
		}
	case RetryRequeue, RetryOff:
		if c.Retry.SigningKey != "" {
			ps.add("retry.signing_key", "applies only to retry.mode delayed")
		}
	default:
		ps.add("retry.mode", "%q is invalid; must be delayed, requeue or off", c.Retry.Mode)
	}
	return ps.err()
}
