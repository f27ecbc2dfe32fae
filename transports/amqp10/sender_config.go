package amqp10

import "strings"

// SenderConfig is the declarative setup of a Sender, as read from the
// settings of a `type: amqp10` sender entry.
type SenderConfig struct {
	// Address is the target used when a dispatch names none (none: such a
	// dispatch fails). On RabbitMQ use /amq/queue/NAME for a declared
	// queue or /exchange/NAME/KEY.
	Address string `yaml:"address" json:"address"`
	// Durable marks every message durable, so the peer keeps it across a
	// restart (true).
	Durable *bool `yaml:"durable" json:"durable"`
	// MaxLinks bounds how many target addresses keep an open link at once
	// (64); the least recently used link is closed beyond that.
	MaxLinks int `yaml:"max_links" json:"max_links"`
}

// DefaultMaxLinks is SenderConfig.MaxLinks's default.
const DefaultMaxLinks = 64

// WithDefaults returns c with every zero field replaced by its default.
func (c SenderConfig) WithDefaults() SenderConfig {
	if c.Durable == nil {
		t := true
		c.Durable = &t
	}
	setDefault(&c.MaxLinks, DefaultMaxLinks)
	return c
}

// Validate reports every problem of c, each naming its field. Call it on
// the result of WithDefaults.
func (c SenderConfig) Validate() error {
	var p problems
	if c.Address != strings.TrimSpace(c.Address) {
		p.add("address", "must not start or end with spaces")
	}
	if c.MaxLinks <= 0 {
		p.add("max_links", "must be positive, got %d", c.MaxLinks)
	}
	return p.err()
}
