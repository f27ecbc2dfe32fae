package sqs

import (
	"encoding/base64"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// SQS limits the wire mapping works within.
const (
	// maxAttributes is how many message attributes SQS accepts per message.
	maxAttributes = 10
	// maxMessageBytes bounds a message (body, attribute names, types and
	// values) and a whole batch.
	maxMessageBytes = 256 * 1024
	// maxBatch is the number of entries a batch call accepts.
	maxBatch = 10
)

// AttrEnvelope is the message attribute that carries the bridge's
// metadata: subject, ID, times, body encoding and the headers that did not
// fit in attributes of their own.
const AttrEnvelope = "gobridge.envelope"

// meta is the JSON content of AttrEnvelope.
type meta struct {
	Subject string `json:"s,omitempty"`
	// SubjectBytes holds a subject that is not valid UTF-8.
	SubjectBytes []byte         `json:"sb,omitempty"`
	ID           string         `json:"id,omitempty"`
	CreatedAt    int64          `json:"c,omitempty"`
	ExpiresAt    int64          `json:"e,omitempty"`
	Base64       bool           `json:"b64,omitempty"`
	Headers      map[string]any `json:"h,omitempty"`
	// Raw holds []byte headers, and string headers whose name or value
	// is not valid UTF-8, which JSON strings could not carry unchanged.
	Raw []rawHeader `json:"x,omitempty"`
}

// rawHeader is one header of meta.Raw.
type rawHeader struct {
	Name  []byte `json:"k"`
	Value []byte `json:"v"`
	// Bytes tells a []byte value from a string one.
	Bytes bool `json:"b,omitempty"`
}

// wireMessage is an envelope as SQS carries it.
type wireMessage struct {
	body  string
	attrs map[string]types.MessageAttributeValue
	size  int
	// group and dedup are the FIFO ids, nil for standard queues.
	group, dedup *string
	// delay is the DelaySeconds of the message, 0 for none.
	delay int32
}

// toWire maps env to a body and attributes. A payload that SQS cannot
// carry as text (invalid UTF-8 or characters outside its allowed set) goes
// base64-encoded. Headers that describe this hop only are left out.
// String and []byte headers become attributes, in name order, while the limit of 10 allows (one is the metadata attribute);
// the others, and headers whose names SQS refuses, travel inside it.
// The attributes go into attrs, an empty map to reuse, or a new map when
// attrs is nil. With minimal, the bridge-to-bridge headers (correlation
// and causation IDs, idempotency key, dedup ID, ordering key, tenant ID,
// forwarded-from and -hop) are left out too.
func toWire(env *messaging.Envelope, attrs map[string]types.MessageAttributeValue, minimal bool) (wireMessage, error) {
	m := meta{Subject: env.Subject, ID: env.ID}
	if !utf8.ValidString(env.Subject) {
		m.Subject, m.SubjectBytes = "", []byte(env.Subject)
	}
	if !env.CreatedAt.IsZero() {
		m.CreatedAt = env.CreatedAt.UnixNano()
	}
	if !env.ExpiresAt.IsZero() {
		m.ExpiresAt = env.ExpiresAt.UnixNano()
	}
	body := env.PayloadView()
	if attrs == nil {
		attrs = make(map[string]types.MessageAttributeValue, min(len(env.Headers)+1, maxAttributes))
	}
	w := wireMessage{attrs: attrs}
	if textSafe(body) {
		w.body = string(body)
	} else {
		w.body = base64.StdEncoding.EncodeToString(body)
		m.Base64 = true
	}
	var names []string
	if len(env.Headers) > 0 {
		names = make([]string, 0, len(env.Headers))
		for k := range env.Headers {
			names = append(names, k)
		}
		sort.Strings(names)
	}
	for _, k := range names {
		v := env.Headers[k]
		if hopOnly(k) || (minimal && messaging.IsPropagated(k)) {
			continue
		}
		if len(w.attrs) < maxAttributes-1 && validAttrName(k) {
			switch s := v.(type) {
			case string:
				if textSafe([]byte(s)) {
					w.attrs[k] = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(s)}
					continue
				}
			case []byte:
				w.attrs[k] = types.MessageAttributeValue{DataType: aws.String("Binary"), BinaryValue: s}
				continue
			}
		}
		m.overflow(k, v)
	}
	mj, err := m.marshal()
	if err != nil {
		return wireMessage{}, err
	}
	w.attrs[AttrEnvelope] = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(mj)}
	w.size = len(w.body)
	for k, a := range w.attrs {
		w.size += len(k) + len(aws.ToString(a.DataType)) + len(aws.ToString(a.StringValue)) + len(a.BinaryValue)
	}
	return w, nil
}

// hopOnly reports whether header k describes the hop into this bridge
// only (its route, source and route override): every bridge strips those
// at ingress, so they are not sent. The content type, which SQS has no
// native field for, is sent.
func hopOnly(k string) bool {
	return k != messaging.HeaderContentType && messaging.IsInternalOnly(k)
}

// fromWire rebuilds an envelope from a received message. A message
// without the metadata attribute (from a producer other than the bridge)
// gets the SQS message ID as its ID and an empty subject.
func fromWire(msg types.Message, now time.Time) *messaging.Envelope {
	var m meta
	a, ok := msg.MessageAttributes[AttrEnvelope]
	if ok && a.StringValue != nil {
		m = unmarshalMeta(*a.StringValue)
	}
	body := []byte(aws.ToString(msg.Body))
	if m.Base64 {
		if b, err := base64.StdEncoding.DecodeString(aws.ToString(msg.Body)); err == nil {
			body = b
		}
	}
	if m.SubjectBytes != nil {
		m.Subject = string(m.SubjectBytes)
	}
	// Built directly rather than with a constructor, which would make an
	// ID, a time and a header map only to have them replaced.
	env := &messaging.Envelope{ID: m.ID, Subject: m.Subject, CreatedAt: now,
		Headers: make(map[string]any, len(msg.MessageAttributes)+len(m.Headers)+len(m.Raw))}
	env.SetPayload(body)
	if env.ID == "" {
		env.ID = aws.ToString(msg.MessageId)
	}
	if m.CreatedAt != 0 {
		env.CreatedAt = time.Unix(0, m.CreatedAt)
	}
	if m.ExpiresAt != 0 {
		env.ExpiresAt = time.Unix(0, m.ExpiresAt)
	}
	for k, v := range m.Headers {
		env.Headers[k] = v
	}
	for _, h := range m.Raw {
		if h.Bytes {
			env.Headers[string(h.Name)] = h.Value
		} else {
			env.Headers[string(h.Name)] = string(h.Value)
		}
	}
	delete(env.Headers, AttrEnvelope)
	for k, v := range msg.MessageAttributes {
		if k == AttrEnvelope {
			continue
		}
		switch {
		case v.BinaryValue != nil:
			env.Headers[k] = v.BinaryValue
		case v.StringValue != nil:
			env.Headers[k] = *v.StringValue
		}
	}
	return env
}

// overflow records a header that has no attribute of its own.
func (m *meta) overflow(k string, v any) {
	switch x := v.(type) {
	case []byte:
		m.Raw = append(m.Raw, rawHeader{Name: []byte(k), Value: x, Bytes: true})
		return
	case string:
		if !utf8.ValidString(k) || !utf8.ValidString(x) {
			m.Raw = append(m.Raw, rawHeader{Name: []byte(k), Value: []byte(x)})
			return
		}
	}
	if m.Headers == nil {
		m.Headers = map[string]any{}
	}
	m.Headers[k] = v
}

// textSafe reports whether SQS accepts b as text: valid UTF-8 made only
// of the characters its message body allows.
func textSafe(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		switch {
		case r == 0x9 || r == 0xA || r == 0xD:
		case r >= 0x20 && r <= 0xD7FF:
		case r >= 0xE000 && r <= 0xFFFD:
		case r >= 0x10000 && r <= 0x10FFFF:
		default:
			return false
		}
	}
	return true
}

// validAttrName reports whether SQS accepts name as a message attribute
// name: up to 256 letters, digits, '-', '_' and '.', no leading, trailing
// or doubled '.', no aws. or amazon. prefix, and not the metadata name.
func validAttrName(name string) bool {
	if name == "" || len(name) > 256 || name == AttrEnvelope {
		return false
	}
	if name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
		return false
	}
	low := strings.ToLower(name)
	if strings.HasPrefix(low, "aws.") || strings.HasPrefix(low, "amazon.") {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}
