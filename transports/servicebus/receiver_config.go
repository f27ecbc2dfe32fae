package servicebus

import (
	"strings"
	"time"
)

// RetryMode says what Delivery.Retry does.
type RetryMode string

// Retry modes.
const (
	// RetryAbandon keeps the message locked for the delay the route asks
	// for, renewing the lock as it goes, then abandons it: Service Bus
	// hands it out again at once with its delivery count raised. The
	// default.
	RetryAbandon RetryMode = "abandon"
	// RetryOff reports that the receiver cannot retry; the route then
	// dead-letters transient failures (category retry_unsupported).
	RetryOff RetryMode = "off"
)

// PermanentMode says where a message the route gives up on goes.
type PermanentMode string

// Permanent modes.
const (
	// PermanentDLQ leaves it to the route: the bridge's DLQ, then the
	// message is completed. The default.
	PermanentDLQ PermanentMode = "dlq"
	// PermanentDeadLetter moves it to the entity's own dead-letter
	// subqueue, with the reason gobridge:<category> and the fault code
	// as its description.
	PermanentDeadLetter PermanentMode = "dead_letter"
)

// Receiver defaults.
const (
	DefaultMaxInFlight        = 100
	DefaultLinks              = 1
	DefaultReceiveWait        = 5 * time.Millisecond
	DefaultMaxSessions        = 8
	DefaultSessionIdleTimeout = 2 * time.Second
	DefaultSessionMaxMessages = 10
	DefaultLinger             = 2 * time.Second
	// maxCredits is the most messages one receive call may ask for (the
	// SDK's link buffer).
	maxCredits = 5000
)

// ReceiverConfig is the declarative setup of a Receiver, as read from the
// settings of a `type: servicebus` receiver entry.
type ReceiverConfig struct {
	// Client says how to reach the namespace.
	Client ClientConfig `yaml:"client" json:"client"`
	// Queue to read; set it, or Topic and Subscription.
	Queue string `yaml:"queue" json:"queue"`
	// Topic whose Subscription to read.
	Topic string `yaml:"topic" json:"topic"`
	// Subscription of Topic to read.
	Subscription string `yaml:"subscription" json:"subscription"`
	// MaxMessages is the most messages one receive call asks for (0: as
	// many as the route's max_in_flight leaves free; for sessions 10).
	MaxMessages int `yaml:"max_messages" json:"max_messages"`
	// ReceiveWait is how long a receive waits for room when less than
	// half of max_messages is free, so that a busy receiver asks for
	// batches rather than for the one message a settlement made room for
	// (unset: 5ms; 0 never waits). An idle receiver never waits. Not used
	// for sessions. A pointer, so that an explicit 0 is told apart from
	// an unset field.
	ReceiveWait *time.Duration `yaml:"receive_wait" json:"receive_wait"`
	// Links is how many receiving links run side by side, sharing the
	// route's max_in_flight, so that one receive's round trip does not
	// hold up the next: worth raising against a distant namespace (1; 1
	// to 16). Not used for sessions, whose workers have a link each.
	Links int `yaml:"links" json:"links"`
	// Sessions reads a session-enabled entity session by session, each
	// session's messages one at a time, in order (false).
	Sessions bool `yaml:"sessions" json:"sessions"`
	// MaxSessions is how many sessions are held and handled side by side
	// (8, and never more than the route's max_in_flight).
	MaxSessions int `yaml:"max_sessions" json:"max_sessions"`
	// SessionIdleTimeout is how long a held session may stay without a
	// message before it is released for the next one (2s).
	SessionIdleTimeout time.Duration `yaml:"session_idle_timeout" json:"session_idle_timeout"`
	// Retry is abandon or off (abandon).
	Retry RetryMode `yaml:"retry" json:"retry"`
	// OnPermanent is dlq or dead_letter (dlq): where a message the route
	// dead-letters goes.
	OnPermanent PermanentMode `yaml:"on_permanent" json:"on_permanent"`
	// Linger bounds how long a stopped Run keeps its links open so that
	// deliveries still being handled can be settled (unset: 2s; 0 closes
	// them at once). Locks still held then expire and Service Bus hands
	// those messages out again. A pointer, as ReceiveWait.
	Linger *time.Duration `yaml:"linger" json:"linger"`
}

// WithDefaults returns c with every zero field replaced by its default.
func (c ReceiverConfig) WithDefaults() ReceiverConfig {
	c.Client = c.Client.WithDefaults()
	setDefault(&c.Links, DefaultLinks)
	c.ReceiveWait = durationOr(c.ReceiveWait, DefaultReceiveWait)
	setDefault(&c.MaxSessions, DefaultMaxSessions)
	setDefault(&c.SessionIdleTimeout, DefaultSessionIdleTimeout)
	setDefault(&c.Retry, RetryAbandon)
	setDefault(&c.OnPermanent, PermanentDLQ)
	c.Linger = durationOr(c.Linger, DefaultLinger)
	return c
}

// durationOr returns a pointer to a copy of *p, or to def when p is nil:
// the copy keeps configs that share a pointer independent.
func durationOr(p *time.Duration, def time.Duration) *time.Duration {
	if p != nil {
		def = *p
	}
	return &def
}

// receiveWait is ReceiveWait, its default when unset.
func (c ReceiverConfig) receiveWait() time.Duration {
	return *durationOr(c.ReceiveWait, DefaultReceiveWait)
}

// linger is Linger, its default when unset.
func (c ReceiverConfig) linger() time.Duration { return *durationOr(c.Linger, DefaultLinger) }

// Validate reports every problem of c, each naming its field. Call it on
// the result of WithDefaults.
func (c ReceiverConfig) Validate() error {
	var p problems
	c.Client.check(&p, "client.")
	switch {
	case c.Queue != "" && (c.Topic != "" || c.Subscription != ""):
		p.add("queue", "set queue, or topic and subscription, not both")
	case c.Queue != "":
		checkEntityName(&p, "queue", c.Queue)
	case c.Topic == "" && c.Subscription == "":
		p.add("queue", "required: a queue, or a topic and a subscription")
	case c.Topic == "":
		p.add("topic", "required with subscription")
	case c.Subscription == "":
		p.add("subscription", "required with topic")
	default:
		checkEntityName(&p, "topic", c.Topic)
		checkSubscriptionName(&p, "subscription", c.Subscription)
	}
	if c.MaxMessages < 0 || c.MaxMessages > maxCredits {
		p.add("max_messages", "must be 0 (derived) to %d, got %d", maxCredits, c.MaxMessages)
	}
	if w := c.receiveWait(); w < 0 || w > time.Second {
		p.add("receive_wait", "must be from 0 to 1s, got %v", w)
	}
	if c.Links < 1 || c.Links > 16 {
		p.add("links", "must be 1 to 16, got %d", c.Links)
	}
	if c.MaxSessions < 1 || c.MaxSessions > 1000 {
		p.add("max_sessions", "must be 1 to 1000, got %d", c.MaxSessions)
	}
	if c.SessionIdleTimeout < 100*time.Millisecond || c.SessionIdleTimeout > 10*time.Minute {
		p.add("session_idle_timeout", "must be from 100ms to 10m, got %v", c.SessionIdleTimeout)
	}
	switch c.Retry {
	case RetryAbandon, RetryOff:
	default:
		p.add("retry", "must be abandon or off, got %q", c.Retry)
	}
	switch c.OnPermanent {
	case PermanentDLQ, PermanentDeadLetter:
	default:
		p.add("on_permanent", "must be dlq or dead_letter, got %q", c.OnPermanent)
	}
	if l := c.linger(); l < 0 || l > time.Minute {
		p.add("linger", "must be from 0 to 1m, got %v", l)
	}
	return p.err()
}

// entityPath is the path of the entity c reads, as Service Bus names it.
func (c ReceiverConfig) entityPath() string {
	if c.Queue != "" {
		return c.Queue
	}
	return c.Topic + "/Subscriptions/" + c.Subscription
}

// checkEntityName accepts a queue or topic name: 1 to 260 letters, digits,
// '.', '-', '_' and '/', starting and ending with a letter or digit.
func checkEntityName(p *problems, field, name string) {
	if len(name) > 260 || !validName(name, "/") {
		p.add(field, "%q is not a Service Bus entity name (1 to 260 letters, digits, '.', '-', '_', '/'; starting and ending with a letter or digit)", name)
	}
}

// checkSubscriptionName accepts a subscription name: 1 to 50 characters,
// as entity names but without '/'.
func checkSubscriptionName(p *problems, field, name string) {
	if len(name) > 50 || !validName(name, "") {
		p.add(field, "%q is not a subscription name (1 to 50 letters, digits, '.', '-', '_'; starting and ending with a letter or digit)", name)
	}
}

func validName(name, extra string) bool {
	if name == "" {
		return false
	}
	alnum := func(r byte) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' }
	if !alnum(name[0]) || !alnum(name[len(name)-1]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		r := name[i]
		if !alnum(r) && r != '.' && r != '-' && r != '_' && !strings.ContainsRune(extra, rune(r)) {
			return false
		}
	}
	return true
}
