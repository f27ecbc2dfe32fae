package servicebus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// HeaderNamespace starts the names of the headers a receiver derives from
// the Service Bus message itself rather than from its application
// properties. A producer cannot set them: application properties in this
// namespace (in any case) are dropped on receipt and never sent, and the
// protocol-derived values are written last.
const HeaderNamespace = "servicebus."

// Protocol-derived headers.
const (
	// HeaderDeliveryCount is how often Service Bus has handed the message
	// out, this time included (1 the first time), as an int64.
	HeaderDeliveryCount = HeaderNamespace + "delivery-count"
	// HeaderSequenceNumber is the entity's sequence number of the message,
	// as an int64.
	HeaderSequenceNumber = HeaderNamespace + "sequence-number"
	// HeaderEnqueuedTime is when Service Bus accepted the message, RFC
	// 3339 with nanoseconds, UTC.
	HeaderEnqueuedTime = HeaderNamespace + "enqueued-time"
	// HeaderSessionID is the message's session id.
	HeaderSessionID = HeaderNamespace + "session-id"
	// HeaderReplyTo, HeaderTo and HeaderPartitionKey are the native
	// properties of the same names.
	HeaderReplyTo = HeaderNamespace + "reply-to"
	// HeaderTo is the native "to" property.
	HeaderTo = HeaderNamespace + "to"
	// HeaderPartitionKey is the native partition key.
	HeaderPartitionKey = HeaderNamespace + "partition-key"
	// HeaderDeadLetterSource, HeaderDeadLetterReason and
	// HeaderDeadLetterDescription describe a message read from a
	// dead-letter subqueue.
	HeaderDeadLetterSource = HeaderNamespace + "dead-letter-source"
	// HeaderDeadLetterReason is the reason given when it was dead-lettered.
	HeaderDeadLetterReason = HeaderNamespace + "dead-letter-reason"
	// HeaderDeadLetterDescription is the description given with it.
	HeaderDeadLetterDescription = HeaderNamespace + "dead-letter-description"
)

// Service Bus limits the mapping works within.
const (
	// maxIDLength bounds message, correlation and session ids.
	maxIDLength = 128
	// maxTTL is the longest time to live read as an expiry; Service Bus
	// reports "never" as about 10,000 years.
	maxTTL = 100 * 365 * 24 * time.Hour
)

// Application properties the SDK reads as strings on receipt (and panics
// on otherwise): a header of that name always goes as a string.
const (
	propDeadLetterReason      = "DeadLetterReason"
	propDeadLetterDescription = "DeadLetterErrorDescription"
)

// Message annotations Service Bus reads on send.
const annScheduledEnqueueTime = "x-opt-scheduled-enqueue-time"

// inNamespace reports whether name lies in HeaderNamespace, ignoring case.
func inNamespace(name string) bool {
	return len(name) >= len(HeaderNamespace) && strings.EqualFold(name[:len(HeaderNamespace)], HeaderNamespace)
}

// outbound says how toMessage maps one envelope.
type outbound struct {
	// sessionHeader names the header whose value is the session id ("":
	// none).
	sessionHeader string
	// notBefore, when set, is the scheduled enqueue time.
	notBefore time.Time
	now       time.Time
	// minimal leaves out what only a bridge downstream reads: the
	// x-bridge.* application properties, the creation time, and the
	// correlation id when it is the message's own ID (the value a bridge
	// gives a message that starts a conversation, and gives it again on
	// receipt).
	minimal bool
}

// toMessage builds the Service Bus message for env: the payload as the
// one data section, a header only to carry the time to live, the envelope ID as the message id (hashed when longer
// than Service Bus's 128 characters), the subject and creation time in
// their native properties, the expiry as the time to live, every header
// outside HeaderNamespace as an application property, except the
// bridge's correlation id and content type, which travel in their native
// properties when those can hold them, and the headers that describe
// this hop only (messaging.IsInternalOnly), which are not sent. With
// o.minimal, less goes: see outbound.
func toMessage(env *messaging.Envelope, o outbound) (*azservicebus.AMQPAnnotatedMessage, error) {
	if !utf8.ValidString(env.Subject) {
		return nil, fault.ErrInvalidPayload.WithMessage("servicebus: the subject is not UTF-8, which the subject property requires")
	}
	// One allocation for the message and the parts it points to.
	out := &outMessage{data: [1][]byte{env.PayloadView()}}
	m := &out.msg
	m.Body.Data = out.data[:]
	m.Properties = &out.props
	if env.ID != "" {
		m.Properties.MessageID = fitID(env.ID)
	}
	if env.Subject != "" {
		out.subject = env.Subject
		m.Properties.Subject = &out.subject
	}
	if !env.CreatedAt.IsZero() && !o.minimal {
		out.created = env.CreatedAt
		m.Properties.CreationTime = &out.created
	}
	if env.HasExpiry() {
		// Only the time to live needs a header: Service Bus stores every
		// message whatever durable says, and 4 is AMQP's default priority,
		// which go-amqp then leaves out.
		m.Header = &azservicebus.AMQPAnnotatedMessageHeader{Priority: 4, TTL: max(env.ExpiresAt.Sub(o.now), time.Millisecond)}
	}
	if s, ok := env.HeaderString(messaging.HeaderCorrelationID); ok && s != "" && len(s) <= maxIDLength && utf8.ValidString(s) &&
		!(o.minimal && s == env.ID) {
		m.Properties.CorrelationID = s
	}
	if s, ok := env.HeaderString(messaging.HeaderContentType); ok && s != "" && utf8.ValidString(s) {
		ct := s
		m.Properties.ContentType = &ct
	}
	if o.sessionHeader != "" {
		sid, ok := env.HeaderString(o.sessionHeader)
		switch {
		case !ok || sid == "":
		case len(sid) > maxIDLength || !utf8.ValidString(sid):
			return nil, fault.ErrInvalidPayload.WithMessage(fmt.Sprintf("servicebus: header %s is not a session id (up to 128 characters of UTF-8)", o.sessionHeader))
		default:
			m.Properties.GroupID = &sid
		}
	}
	if !o.notBefore.IsZero() {
		m.MessageAnnotations = map[any]any{annScheduledEnqueueTime: o.notBefore.UTC()}
	}
	for k, v := range env.Headers {
		if inNamespace(k) || !utf8.ValidString(k) || v == nil || (o.minimal && messaging.IsReserved(k)) {
			continue
		}
		if k == messaging.HeaderCorrelationID && m.Properties.CorrelationID != nil {
			continue // travels in its native property, and comes back from it
		}
		if messaging.IsInternalOnly(k) {
			// Route, source, route override and content type describe
			// this hop and every bridge strips them at ingress; the
			// content type went native when it could.
			continue
		}
		if m.ApplicationProperties == nil {
			m.ApplicationProperties = make(map[string]any, len(env.Headers))
		}
		if k == propDeadLetterReason || k == propDeadLetterDescription {
			m.ApplicationProperties[k] = stringValue(v)
			continue
		}
		m.ApplicationProperties[k] = propertyValue(v)
	}
	return m, nil
}

// outMessage holds a message to send and what its pointers refer to, so
// that toMessage allocates them together.
type outMessage struct {
	msg     azservicebus.AMQPAnnotatedMessage
	props   azservicebus.AMQPAnnotatedMessageProperties
	data    [1][]byte
	subject string
	created time.Time
}

// fitID returns id, or a hash of it when Service Bus would refuse it as a
// message id.
func fitID(id string) string {
	if len(id) <= maxIDLength && utf8.ValidString(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// propertyValue keeps the values AMQP carries as simple types, sends
// strings that are not UTF-8 as binary, and renders anything else as a
// string (maps and slices as JSON).
func propertyValue(v any) any {
	switch x := v.(type) {
	case string:
		if !utf8.ValidString(x) {
			return []byte(x)
		}
		return x
	case []byte, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, time.Time:
		return v
	}
	return stringValue(v)
}

// stringValue renders v as a UTF-8 string (invalid bytes replaced by
// U+FFFD); maps and slices as JSON.
func stringValue(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case []byte:
		s = string(x)
	case map[string]any, []any:
		if b, err := json.Marshal(x); err == nil {
			return string(b)
		}
		s = fmt.Sprint(v)
	default:
		s = fmt.Sprint(v)
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// fromReceived builds the envelope of a received message: application
// properties outside HeaderNamespace become headers, the native
// correlation id and content type fill the bridge's headers when the
// application properties did not, and the protocol-derived servicebus.*
// headers are written last.
func fromReceived(m *azservicebus.ReceivedMessage, now time.Time) *messaging.Envelope {
	var raw *azservicebus.AMQPAnnotatedMessage
	if m.RawAMQPMessage != nil {
		raw = m.RawAMQPMessage
	}
	subject := ""
	if m.Subject != nil {
		subject = *m.Subject
	}
	// Built directly rather than with a constructor, which would mint an
	// ID, read the clock and make a header map only to have them replaced.
	// The SDK hands the body over and no longer touches it.
	env := &messaging.Envelope{Subject: subject, Headers: make(map[string]any, len(m.ApplicationProperties)+6)}
	env.SetPayload(payloadOf(m))
	for k, v := range m.ApplicationProperties {
		if inNamespace(k) {
			continue
		}
		if hv := headerValue(v); hv != nil {
			env.Headers[k] = hv
		}
	}
	switch {
	case m.MessageID != "":
		env.ID = m.MessageID
	case raw != nil && raw.Properties != nil && raw.Properties.MessageID != nil:
		env.ID = stringValue(headerValue(raw.Properties.MessageID))
	case m.SequenceNumber != nil:
		env.ID = fmt.Sprintf("sb-%d", *m.SequenceNumber)
	default:
		env.ID = messaging.NewID()
	}
	env.CreatedAt = now
	switch {
	case raw != nil && raw.Properties != nil && raw.Properties.CreationTime != nil && !raw.Properties.CreationTime.IsZero():
		env.CreatedAt = *raw.Properties.CreationTime
	case m.EnqueuedTime != nil:
		env.CreatedAt = *m.EnqueuedTime
	}
	if m.TimeToLive != nil && *m.TimeToLive > 0 && *m.TimeToLive < maxTTL && m.EnqueuedTime != nil {
		env.ExpiresAt = m.EnqueuedTime.Add(*m.TimeToLive)
	}
	if _, set := env.Headers[messaging.HeaderCorrelationID]; !set && m.CorrelationID != nil && *m.CorrelationID != "" {
		env.Headers[messaging.HeaderCorrelationID] = *m.CorrelationID
	}
	if _, set := env.Headers[messaging.HeaderContentType]; !set && m.ContentType != nil && *m.ContentType != "" {
		env.Headers[messaging.HeaderContentType] = *m.ContentType
	}
	env.Headers[HeaderDeliveryCount] = int64(m.DeliveryCount)
	if m.SequenceNumber != nil {
		env.Headers[HeaderSequenceNumber] = *m.SequenceNumber
	}
	if m.EnqueuedTime != nil {
		env.Headers[HeaderEnqueuedTime] = m.EnqueuedTime.UTC().Format(time.RFC3339Nano)
	}
	setString(env, HeaderSessionID, m.SessionID)
	setString(env, HeaderReplyTo, m.ReplyTo)
	setString(env, HeaderTo, m.To)
	setString(env, HeaderPartitionKey, m.PartitionKey)
	setString(env, HeaderDeadLetterSource, m.DeadLetterSource)
	setString(env, HeaderDeadLetterReason, m.DeadLetterReason)
	setString(env, HeaderDeadLetterDescription, m.DeadLetterErrorDescription)
	return env
}

func setString(env *messaging.Envelope, name string, v *string) {
	if v != nil && *v != "" {
		env.Headers[name] = *v
	}
}

// headerValue turns an application property into a header value: AMQP's
// own id and symbol types become strings; nil is dropped.
func headerValue(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case amqp.UUID:
		return x.String()
	case amqp.Symbol:
		return string(x)
	}
	return v
}

// payloadOf returns the body: the data sections joined, or an AMQP value
// that is a string or binary.
func payloadOf(m *azservicebus.ReceivedMessage) []byte {
	if m.Body != nil || m.RawAMQPMessage == nil {
		return m.Body
	}
	b := m.RawAMQPMessage.Body
	switch len(b.Data) {
	case 0:
	case 1:
		return b.Data[0]
	default:
		var out []byte
		for _, d := range b.Data {
			out = append(out, d...)
		}
		return out
	}
	switch v := b.Value.(type) {
	case []byte:
		return v
	case string:
		return []byte(v)
	}
	return nil
}
