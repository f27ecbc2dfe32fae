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
	// BatchWindow is how long a Send that finds no send to its entity
	// under way waits for others to join its SendMessageBatch call (0:
	// it goes at once; sends that arrive while a call is under way go
	// together in the next). At most 1s.
	BatchWindow time.Duration `yaml:"batch_window" json:"batch_window"`
}

// WithDefaults fills the client defaults.
func (c SenderConfig) WithDefaults() SenderConfig {
	c.Client = c.Client.WithDefaults()
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
	if c.BatchWindow < 0 || c.BatchWindow > time.Second {
		p.add("batch_window", "must be from 0 to 1s, got %v", c.BatchWindow)
	}
	return p.err()
}
