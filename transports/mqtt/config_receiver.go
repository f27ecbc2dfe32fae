package mqtt

import (
	"fmt"
	"strings"
)

// Receiver defaults.
const (
	DefaultSubscriptionQoS = 1
	DefaultQoS0Buffer      = 1000
)

// SubscriptionConfig is one topic filter a receiver subscribes to.
type SubscriptionConfig struct {
	// Topic is the topic filter, wildcards + and # allowed. A shared
	// subscription is written $share/<group>/<filter>. Required.
	Topic string `yaml:"topic" json:"topic"`
	// QoS is the maximum quality of service asked for: 0, 1 or 2 (1).
	// Write qos: 0 explicitly for best-effort delivery.
	QoS *int `yaml:"qos" json:"qos"`
	// NoLocal asks the broker not to send back messages this session
	// published itself (false). Not allowed on shared subscriptions.
	NoLocal bool `yaml:"no_local" json:"no_local"`
	// RetainHandling says when retained messages are sent: 0 on every
	// subscribe (default), 1 only when the subscription is new, 2 never.
	RetainHandling int `yaml:"retain_handling" json:"retain_handling"`
	// RetainAsPublished keeps the retain flag of forwarded messages as the
	// publisher set it (false).
	RetainAsPublished bool `yaml:"retain_as_published" json:"retain_as_published"`
}

// EffectiveQoS is the subscription's QoS after the default.
func (s SubscriptionConfig) EffectiveQoS() int {
	if s.QoS == nil {
		return DefaultSubscriptionQoS
	}
	return *s.QoS
}

// ReceiverConfig is the declarative setup of an MQTT receiver, as read
// from the settings of a `type: mqtt` receiver entry. The receiver runs on
// a Session, which the entry names.
type ReceiverConfig struct {
	// Subscriptions are the topic filters to receive from. Required.
	Subscriptions []SubscriptionConfig `yaml:"subscriptions" json:"subscriptions"`
	// QoS0Buffer bounds the QoS 0 messages queued while the route is busy
	// (1000). Past it they are dropped and counted: QoS 0 is best effort.
	// QoS 1/2 messages are bounded by the session's receive_maximum.
	QoS0Buffer int `yaml:"qos0_buffer" json:"qos0_buffer"`
}

// WithDefaults returns c with every zero field replaced by its default.
func (c ReceiverConfig) WithDefaults() ReceiverConfig {
	setDefault(&c.QoS0Buffer, DefaultQoS0Buffer)
	return c
}

// Validate reports every problem with c, after applying the defaults,
// each naming its field, joined into one error.
func (c ReceiverConfig) Validate() error {
	c = c.WithDefaults()
	var ps problems
	if len(c.Subscriptions) == 0 {
		ps.add("subscriptions", "at least one subscription is required")
	}
	seen := map[string]bool{}
	for i, s := range c.Subscriptions {
		field := fmt.Sprintf("subscriptions[%d]", i)
		if err := checkFilter(s.Topic); err != nil {
			ps.add(field+".topic", "%v", err)
		} else if seen[s.Topic] {
			ps.add(field+".topic", "%q is listed twice", s.Topic)
		}
		seen[s.Topic] = true
		if q := s.EffectiveQoS(); q < 0 || q > 2 {
			ps.add(field+".qos", "must be 0, 1 or 2, got %d", q)
		}
		if s.RetainHandling < 0 || s.RetainHandling > 2 {
			ps.add(field+".retain_handling", "must be 0, 1 or 2, got %d", s.RetainHandling)
		}
		if s.NoLocal && strings.HasPrefix(s.Topic, sharePrefix) {
			ps.add(field+".no_local", "is not allowed on a shared subscription")
		}
	}
	notNegative(&ps, "qos0_buffer", c.QoS0Buffer)
	return ps.err()
}

// hasQoS reports whether any subscription asks for QoS 0 (zero) or for
// QoS 1/2 (reliable).
func (c ReceiverConfig) hasQoS() (zero, reliable bool) {
	for _, s := range c.Subscriptions {
		if s.EffectiveQoS() == 0 {
			zero = true
		} else {
			reliable = true
		}
	}
	return zero, reliable
}
