package amqp10

import (
	"fmt"
	"strings"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// HeaderNamespace starts the names of the headers the receiver derives
// from the AMQP 1.0 message itself rather than from its
// application-properties. A producer cannot set them: application
// properties in this namespace are dropped on receipt, and the
// protocol-derived values are written last.
const HeaderNamespace = "amqp10."

// Protocol-derived headers.
const (
	HeaderDeliveryCount = HeaderNamespace + "delivery-count"
	HeaderTo            = HeaderNamespace + "to"
	HeaderReplyTo       = HeaderNamespace + "reply-to"
	HeaderUserID        = HeaderNamespace + "user-id"
	HeaderGroupID       = HeaderNamespace + "group-id"
	HeaderPriority      = HeaderNamespace + "priority"
	// HeaderAnnotationPrefix starts one header per message annotation
	// with a simple value: amqp10.annotation.<key>.
	HeaderAnnotationPrefix = HeaderNamespace + "annotation."
)

// inNamespace reports whether name lies in HeaderNamespace, ignoring case.
func inNamespace(name string) bool {
	return len(name) >= len(HeaderNamespace) && strings.EqualFold(name[:len(HeaderNamespace)], HeaderNamespace)
}

// toMessage builds the AMQP message for env. The subject travels in the
// subject property, every header outside HeaderNamespace in the
// application-properties, amqp10.annotation.* headers as message
// annotations, and the bridge's correlation id and content type in their
// native properties as well.
func toMessage(env *messaging.Envelope, durable bool, now time.Time) *amqp.Message {
	m := &amqp.Message{
		Header:     &amqp.MessageHeader{Durable: durable},
		Properties: &amqp.MessageProperties{},
		Data:       [][]byte{env.PayloadView()},
	}
	if env.ID != "" {
		m.Properties.MessageID = env.ID
	}
	if env.Subject != "" {
		subj := env.Subject
		m.Properties.Subject = &subj
	}
	if !env.CreatedAt.IsZero() {
		t := env.CreatedAt
		m.Properties.CreationTime = &t
	}
	if env.HasExpiry() {
		t := env.ExpiresAt
		m.Properties.AbsoluteExpiryTime = &t
		if ttl := env.ExpiresAt.Sub(now); ttl > 0 {
			m.Header.TTL = ttl
		} else {
			m.Header.TTL = time.Millisecond
		}
	}
	for k, v := range env.Headers {
		if inNamespace(k) {
			if key, ok := strings.CutPrefix(strings.ToLower(k), HeaderAnnotationPrefix); ok && strings.HasPrefix(key, "x-") {
				if m.Annotations == nil {
					m.Annotations = amqp.Annotations{}
				}
				m.Annotations[key] = simpleValue(v)
			}
			continue
		}
		if m.ApplicationProperties == nil {
			m.ApplicationProperties = make(map[string]any, len(env.Headers))
		}
		m.ApplicationProperties[k] = simpleValue(v)
	}
	if s, ok := env.HeaderString(messaging.HeaderCorrelationID); ok {
		m.Properties.CorrelationID = s
	}
	if s, ok := env.HeaderString(messaging.HeaderContentType); ok {
		ct := s
		m.Properties.ContentType = &ct
	}
	return m
}

// simpleValue keeps the values AMQP encodes as simple types and renders
// anything else as a string.
func simpleValue(v any) any {
	switch v.(type) {
	case string, []byte, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, time.Time, nil:
		return v
	}
	return fmt.Sprint(v)
}

// fromMessage builds the envelope of a received message: application
// properties outside HeaderNamespace become headers, the native
// correlation id and content type fill the bridge's headers when the
// application properties did not, and the protocol-derived amqp10.*
// headers are written last.
func fromMessage(m *amqp.Message, now time.Time) *messaging.Envelope {
	env := messaging.NewEnvelopeFromImmutablePayload("", payloadOf(m))
	env.Headers = make(map[string]any, len(m.ApplicationProperties)+4)
	for k, v := range m.ApplicationProperties {
		if inNamespace(k) {
			continue
		}
		env.Headers[k] = v
	}
	if p := m.Properties; p != nil {
		if p.MessageID != nil {
			env.ID = idString(p.MessageID)
		}
		if p.Subject != nil {
			env.Subject = *p.Subject
		}
		if p.CreationTime != nil {
			env.CreatedAt = *p.CreationTime
		}
		if p.AbsoluteExpiryTime != nil && !p.AbsoluteExpiryTime.IsZero() {
			env.ExpiresAt = *p.AbsoluteExpiryTime
		}
		if _, set := env.Headers[messaging.HeaderCorrelationID]; !set && p.CorrelationID != nil {
			env.Headers[messaging.HeaderCorrelationID] = idString(p.CorrelationID)
		}
		if _, set := env.Headers[messaging.HeaderContentType]; !set && p.ContentType != nil {
			env.Headers[messaging.HeaderContentType] = *p.ContentType
		}
		setString(env, HeaderTo, p.To)
		setString(env, HeaderReplyTo, p.ReplyTo)
		setString(env, HeaderGroupID, p.GroupID)
		if len(p.UserID) > 0 {
			env.Headers[HeaderUserID] = string(p.UserID)
		}
	}
	if h := m.Header; h != nil {
		env.Headers[HeaderDeliveryCount] = int64(h.DeliveryCount)
		env.Headers[HeaderPriority] = int64(h.Priority)
		if env.ExpiresAt.IsZero() && h.TTL > 0 {
			env.ExpiresAt = now.Add(h.TTL)
		}
	}
	for k, v := range m.Annotations {
		key, ok := k.(string)
		if !ok {
			if sym, isSym := k.(amqp.Symbol); isSym {
				key = string(sym)
			} else {
				continue
			}
		}
		if sv := simpleValue(v); sv != nil {
			env.Headers[HeaderAnnotationPrefix+strings.ToLower(key)] = sv
		}
	}
	return env
}

func setString(env *messaging.Envelope, name string, v *string) {
	if v != nil && *v != "" {
		env.Headers[name] = *v
	}
}

// payloadOf returns the body: the data sections joined, or an AMQP value
// that is a string or binary.
func payloadOf(m *amqp.Message) []byte {
	switch len(m.Data) {
	case 0:
	case 1:
		return m.Data[0]
	default:
		var out []byte
		for _, d := range m.Data {
			out = append(out, d...)
		}
		return out
	}
	switch v := m.Value.(type) {
	case []byte:
		return v
	case string:
		return []byte(v)
	}
	return nil
}

// idString renders a message or correlation id (string, ulong, uuid or
// binary) as a string.
func idString(v any) string {
	switch id := v.(type) {
	case string:
		return id
	case []byte:
		return string(id)
	case amqp.UUID:
		return id.String()
	}
	return fmt.Sprint(v)
}
