package mqtt

import (
	"fmt"
	"strings"
	"time"

	"github.com/eclipse/paho.golang/paho"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// Header names under which a receiver presents MQTT metadata, and which a
// sender turns back into MQTT properties.
const (
	// HeaderTopic holds the topic a message was published to. Senders
	// ignore it: the dispatch address decides the topic.
	HeaderTopic = "mqtt.topic"
	// HeaderRetain is "true" on a message the broker sent as retained.
	// Senders ignore it.
	HeaderRetain = "mqtt.retain"
	// HeaderContentType carries the Content Type property.
	HeaderContentType = "mqtt.content-type"
	// HeaderCorrelationData carries the Correlation Data property ([]byte).
	HeaderCorrelationData = "mqtt.correlation-data"
	// HeaderResponseTopic carries the Response Topic property.
	HeaderResponseTopic = "mqtt.response-topic"
	// PropertyMessageID is the user property that carries Envelope.ID, so
	// that a message keeps its ID from one bridge to the next.
	PropertyMessageID = "gobridge.id"

	// DerivedPrefix starts every header name a receiver derives from the
	// MQTT packet itself. The namespace belongs to the bridge: a user
	// property in it (in any letter case) is dropped on receipt, so a
	// producer cannot forge the topic, the retain flag or a property the
	// packet does not carry; and a sender never writes one as a user
	// property.
	DerivedPrefix = "mqtt."
)

// isDerived reports whether name lies in the mqtt. namespace, compared
// case-insensitively.
func isDerived(name string) bool {
	return len(name) >= len(DerivedPrefix) && strings.EqualFold(name[:len(DerivedPrefix)], DerivedPrefix)
}

// toEnvelope builds the envelope of a received message. The payload is
// adopted: paho allocates it for this message and never touches it again.
// id is used when the message carries no gobridge.id; expiry is measured
// from received.
func toEnvelope(p *paho.Publish, id string, received time.Time) *messaging.Envelope {
	env := messaging.NewEnvelopeFromImmutablePayload("", p.Payload)
	env.ID = id
	pr := p.Properties
	if pr != nil {
		for _, u := range pr.User {
			switch {
			case u.Key == messaging.SubjectCarrier:
				env.Subject = u.Value
			case u.Key == PropertyMessageID:
				if u.Value != "" {
					env.ID = u.Value
				}
			case isDerived(u.Key):
				// The packet decides these, never a producer's user property.
			default:
				env.Headers[u.Key] = u.Value
			}
		}
	}
	// The headers derived from the packet are written last.
	env.Headers[HeaderTopic] = p.Topic
	if p.Retain {
		env.Headers[HeaderRetain] = "true"
	}
	if pr == nil {
		return env
	}
	if pr.ContentType != "" {
		env.Headers[HeaderContentType] = pr.ContentType
	}
	if pr.ResponseTopic != "" {
		env.Headers[HeaderResponseTopic] = pr.ResponseTopic
	}
	if pr.CorrelationData != nil {
		env.Headers[HeaderCorrelationData] = append([]byte(nil), pr.CorrelationData...)
	}
	if pr.MessageExpiry != nil {
		env.ExpiresAt = received.Add(time.Duration(*pr.MessageExpiry) * time.Second)
	}
	return env
}

// toPublish builds the PUBLISH of an outbound envelope. It reads env
// without modifying it.
func toPublish(env *messaging.Envelope, topic string, qos byte, retain, expiry bool, now time.Time) (*paho.Publish, error) {
	props := &paho.PublishProperties{User: make(paho.UserProperties, 0, len(env.Headers)+2)}
	if env.Subject != "" {
		props.User.Add(messaging.SubjectCarrier, env.Subject)
	}
	if env.ID != "" {
		props.User.Add(PropertyMessageID, env.ID)
	}
	for k, v := range env.Headers {
		switch k {
		case HeaderTopic, HeaderRetain, messaging.SubjectCarrier, PropertyMessageID:
		case HeaderContentType:
			props.ContentType = headerText(v)
		case HeaderResponseTopic:
			props.ResponseTopic = headerText(v)
		case HeaderCorrelationData:
			if b, ok := v.([]byte); ok {
				props.CorrelationData = b
			} else {
				props.CorrelationData = []byte(headerText(v))
			}
		default:
			if messaging.IsInternalOnly(k) || isDerived(k) {
				continue // every bridge drops these at ingress; they describe this hop
			}
			props.User.Add(k, headerText(v))
		}
	}
	if expiry && env.HasExpiry() {
		left := env.RemainingTTL(now)
		if left <= 0 {
			return nil, fault.ErrMessageExpired.WithMessage("the message expired before it was published")
		}
		secs := uint32(min((left+time.Second-1)/time.Second, 1<<32-1))
		props.MessageExpiry = &secs
	}
	return &paho.Publish{QoS: qos, Retain: retain, Topic: topic, Properties: props, Payload: env.PayloadView()}, nil
}

// headerText renders a header value as a user property string.
func headerText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []byte:
		return string(t)
	default:
		return fmt.Sprint(t)
	}
}
