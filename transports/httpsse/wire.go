package httpsse

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// wireEnvelope is the JSON form of an envelope shared by the ingress, the
// SSE event data and the webhook body.
type wireEnvelope struct {
	ID            string          `json:"id,omitempty"`
	Subject       string          `json:"subject"`
	Payload       json.RawMessage `json:"payload,omitempty"`
	PayloadBase64 *string         `json:"payload_base64,omitempty"`
	Headers       map[string]any  `json:"headers,omitempty"`
	ExpiresAt     string          `json:"expires_at,omitempty"`
}

// MarshalEnvelope returns the JSON form of env that the SSE and webhook
// senders emit and ParseBody reads back to the same subject, ID, payload
// bytes, string headers and expiry:
//
//	{"id":"…","subject":"orders.created","payload":{"n":1},"headers":{"k":"v"}}
//
// The payload is written so that no byte is lost: a payload that is
// already compact JSON (an object, array, number, true or false) is
// embedded as that JSON value; any other valid UTF-8 payload becomes a JSON
// string; anything else (binary data) is carried base64-encoded in
// payload_base64 instead. Header values are written as JSON values; byte
// slices become strings (base64 when they are not UTF-8) and values JSON
// cannot represent become their fmt.Sprint text.
func MarshalEnvelope(env *messaging.Envelope) ([]byte, error) {
	var buf bytes.Buffer
	if err := appendEnvelope(&buf, env); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// appendEnvelope writes env's JSON form to buf, without a trailing newline.
func appendEnvelope(buf *bytes.Buffer, env *messaging.Envelope) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(toWire(env)); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode ends the value with '\n'
	return nil
}

func toWire(env *messaging.Envelope) wireEnvelope {
	w := wireEnvelope{ID: env.ID, Subject: env.Subject}
	p := env.PayloadView()
	switch {
	case embeddable(p):
		w.Payload = p
	case utf8.Valid(p):
		s, _ := json.Marshal(string(p)) // a string always marshals
		w.Payload = s
	default:
		s := base64.StdEncoding.EncodeToString(p)
		w.PayloadBase64 = &s
	}
	if len(env.Headers) > 0 {
		w.Headers = jsonHeaders(env.Headers)
	}
	if env.HasExpiry() {
		w.ExpiresAt = env.ExpiresAt.UTC().Format(time.RFC3339Nano)
	}
	return w
}

// embeddable reports whether p can be written as a JSON value and read
// back by ParseBody as exactly the same bytes: compact JSON that is not a
// string (ParseBody unquotes strings) and not null (ParseBody reads null
// as an empty payload).
func embeddable(p []byte) bool {
	if len(p) == 0 {
		return false
	}
	switch c := p[0]; {
	case c == '{', c == '[', c == '-', c == 't', c == 'f', c >= '0' && c <= '9':
	default:
		return false
	}
	if !json.Valid(p) {
		return false
	}
	var compact bytes.Buffer
	compact.Grow(len(p))
	if err := json.Compact(&compact, p); err != nil {
		return false
	}
	return bytes.Equal(compact.Bytes(), p)
}
