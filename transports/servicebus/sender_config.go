package servicebus

import (
	"time"
	"unicode/utf8"
)

// DefaultSendWindow is the sender's default batch_window.
const DefaultSendWindow = 5 * time.Millisecond

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
	// BatchWindow is how long a Send waits for concurrent sends to the
	// same entity to share its SendMessageBatch call (5ms). At most 1s.
	BatchWindow time.Duration `yaml:"batch_window" json:"batch_window"`
}

// WithDefaults fills every unset field.
func (c SenderConfig) WithDefaults() SenderConfig {
	c.Client = c.Client.WithDefaults()
	setDefault(&c.BatchWindow, DefaultSendWindow)
	return c
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
	if c.BatchWindow <= 0 || c.BatchWindow > time.Second {
		p.add("batch_window", "must be positive and at most 1s, got %v", c.BatchWindow)
	}
	return p.err()
}
