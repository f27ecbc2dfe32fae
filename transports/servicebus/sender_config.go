package servicebus

import (
	"time"
	"unicode/utf8"
)

// SenderConfig is the declarative setup of a Sender, as read from the
// settings of a `type: servicebus` sender entry.
type SenderConfig struct {
	// Client says how to reach the namespace.
	Client ClientConfig `yaml:"client" json:"client"`
	// Entity is the queue or topic messages whose route gives no address
	// go to (none: such messages fail).
	Entity string `yaml:"entity" json:"entity"`
	// SessionIDHeader names the header whose value becomes the message's
	// session id (none). Session-enabled entities refuse messages
	// without one. servicebus.session-id carries a Service Bus source's
	// session on.
	SessionIDHeader string `yaml:"session_id_header" json:"session_id_header"`
	// BatchWindow bounds how long the sends to one entity wait for one
	// another before a SendMessageBatch call: a call goes once no further
	// send has come for 200µs, or this long after the wait began (unset:
	// 2ms; 0: no wait, and only the sends that arrive while a call is
	// under way go together in the next). At most 1s. A pointer, so that
	// an explicit 0 is told apart from an unset field.
	BatchWindow *time.Duration `yaml:"batch_window" json:"batch_window"`
	// MinimalHeaders sends only what a reader other than a bridge needs:
	// the x-bridge.* headers (idempotency key, tenant ID, ...) stay out of
	// the application properties, the creation time is not set (a reader
	// sees the time Service Bus enqueued the message instead), and the
	// correlation id is set only when it differs from the message id (a
	// bridge downstream takes the message id as the correlation id of a
	// message without one). Fewer properties for the broker to store and
	// parse per message (false).
	MinimalHeaders bool `yaml:"minimal_headers" json:"minimal_headers"`
}

// DefaultBatchWindow is the longest a send waits for others to join its
// call when batch_window is not set.
const DefaultBatchWindow = 2 * time.Millisecond

// WithDefaults fills the client defaults and the batch window.
func (c SenderConfig) WithDefaults() SenderConfig {
	c.Client = c.Client.WithDefaults()
	c.BatchWindow = durationOr(c.BatchWindow, DefaultBatchWindow)
	return c
}

// batchWindow is BatchWindow, its default when unset.
func (c SenderConfig) batchWindow() time.Duration {
	return *durationOr(c.BatchWindow, DefaultBatchWindow)
}

// Validate reports every problem of c, each naming its field.
func (c SenderConfig) Validate() error {
	var p problems
	c.Client.check(&p, "client.")
	if c.Entity != "" {
		checkEntityName(&p, "entity", c.Entity)
	}
	if !utf8.ValidString(c.SessionIDHeader) {
		p.add("session_id_header", "must be UTF-8")
	}
	if w := c.batchWindow(); w < 0 || w > time.Second {
		p.add("batch_window", "must be from 0 to 1s, got %v", w)
	}
	return p.err()
}
