package mqtt

// Sender defaults.
const DefaultPublishQoS = 1

// SenderConfig is the declarative setup of an MQTT sender, as read from
// the settings of a `type: mqtt` sender entry. The sender publishes on a
// Session, which the entry names.
type SenderConfig struct {
	// DefaultTopic is the topic of sends whose address is empty (none:
	// such sends fail permanently with INVALID_TOPIC). The subject is
	// never used as a topic.
	DefaultTopic string `yaml:"default_topic" json:"default_topic"`
	// QoS is the quality of service of every publish: 0, 1 or 2 (1). With
	// 1 or 2 a send succeeds only once the broker acknowledged it
	// (PUBACK, PUBCOMP); with 0 once it is written to the connection.
	QoS *int `yaml:"qos" json:"qos"`
	// Retain sets the retain flag on every publish (false).
	Retain bool `yaml:"retain" json:"retain"`
	// NoExpiry stops the sender from turning the envelope's remaining time
	// to live into the Message Expiry Interval (false: it does).
	NoExpiry bool `yaml:"no_expiry" json:"no_expiry"`
}

// EffectiveQoS is the sender's QoS after the default.
func (c SenderConfig) EffectiveQoS() int {
	if c.QoS == nil {
		return DefaultPublishQoS
	}
	return *c.QoS
}

// Validate reports every problem with c, each naming its field, joined
// into one error.
func (c SenderConfig) Validate() error {
	var ps problems
	if c.DefaultTopic != "" {
		if err := checkTopicName(c.DefaultTopic); err != nil {
			ps.add("default_topic", "%v", err)
		}
	}
	if q := c.EffectiveQoS(); q < 0 || q > 2 {
		ps.add("qos", "must be 0, 1 or 2, got %d", q)
	}
	return ps.err()
}

// IntPtr returns a pointer to v, for the QoS fields of the configuration
// structs.
func IntPtr(v int) *int { return &v }
