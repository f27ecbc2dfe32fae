package amqp091

// DeliveryMode is the persistence of published messages.
type DeliveryMode string

// Delivery modes.
const (
	// Persistent messages are written to disk by durable queues (the
	// default).
	Persistent DeliveryMode = "persistent"
	// Transient messages live in memory only.
	Transient DeliveryMode = "transient"
)

// Sender defaults.
const (
	DefaultMaxOutstanding = 1000
)

// SenderConfig is the declarative setup of a Sender, as read from the
// settings of a `type: amqp091` sender entry.
type SenderConfig struct {
	// Exchange to publish to ("" is the default exchange, where the
	// routing key names a queue).
	Exchange string `yaml:"exchange" json:"exchange"`
	// RoutingKey is used only when a dispatch carries no address; it is
	// never derived from the subject.
	RoutingKey string `yaml:"routing_key" json:"routing_key"`
	// Mandatory asks the broker to return messages no queue takes; the
	// send then fails with a permanent NOT_FOUND error (true).
	Mandatory *bool `yaml:"mandatory" json:"mandatory"`
	// DeliveryMode is persistent or transient (persistent).
	DeliveryMode DeliveryMode `yaml:"delivery_mode" json:"delivery_mode"`
	// MaxOutstanding bounds the publishes waiting for their confirm;
	// further sends wait (1000).
	MaxOutstanding int `yaml:"max_outstanding" json:"max_outstanding"`
	// AppID is set as the app-id property when the message has none.
	AppID string `yaml:"app_id" json:"app_id"`
	// MinimalHeaders leaves the bridge-to-bridge x-bridge.* headers
	// (correlation ID, causation ID, idempotency key, ...) out of every
	// message, so the broker stores and copies fewer bytes; only a bridge
	// downstream with trust_bridge_headers would read them (false).
	MinimalHeaders bool `yaml:"minimal_headers" json:"minimal_headers"`
}

// WithDefaults returns c with every zero field replaced by its default.
func (c SenderConfig) WithDefaults() SenderConfig {
	if c.Mandatory == nil {
		t := true
		c.Mandatory = &t
	}
	setDefault(&c.DeliveryMode, Persistent)
	setDefault(&c.MaxOutstanding, DefaultMaxOutstanding)
	return c
}

// Validate reports every problem with c, after applying the defaults,
// each naming its field, joined into one error.
func (c SenderConfig) Validate() error {
	c = c.WithDefaults()
	var ps problems
	if len(c.Exchange) > 255 {
		ps.add("exchange", "must be at most 255 bytes")
	}
	if len(c.RoutingKey) > 255 {
		ps.add("routing_key", "must be at most 255 bytes")
	}
	switch c.DeliveryMode {
	case Persistent, Transient:
	default:
		ps.add("delivery_mode", "%q is invalid; must be persistent or transient", c.DeliveryMode)
	}
	checkPositive(&ps, "max_outstanding", c.MaxOutstanding)
	return ps.err()
}
