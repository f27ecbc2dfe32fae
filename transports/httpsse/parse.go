package httpsse

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// Limits on the envelope fields ParseBody accepts.
const (
	// MaxIDLen is the longest accepted message ID (and Idempotency-Key).
	MaxIDLen = 256
	// MaxSubjectLen is the longest accepted subject.
	MaxSubjectLen = 1024
)

// BodyError describes why ParseBody refused a body. Field names the JSON
// field at fault (empty for the document as a whole) and Offset is the
// 0-based byte offset in the body where the problem was found: the
// offending byte of a syntax error, the name of an unknown field, the end
// of a value of the wrong type; -1 when the problem has no position.
type BodyError struct {
	Field  string
	Offset int64
	Msg    string
}

// Error formats the problem as "field F: message (at byte N)".
func (e *BodyError) Error() string {
	var b strings.Builder
	if e.Field != "" {
		b.WriteString("field ")
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " (at byte %d)", e.Offset)
	}
	return b.String()
}

func bodyErr(field string, off int64, format string, args ...any) *BodyError {
	return &BodyError{Field: field, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// ParseBody reads a JSON envelope, the body format of the HTTP ingress:
//
//	{"subject": "orders.created", "payload": {"n": 1},
//	 "headers": {"k": "v"}, "id": "…", "expires_at": "2030-01-02T15:04:05Z"}
//
// payload may be any JSON value. A string becomes its UTF-8 bytes (so
// "hello" is the 5-byte payload hello); null or an absent payload is the
// empty payload; any other value becomes its JSON text exactly as it
// appears in the body. Binary payloads travel base64-encoded (standard
// alphabet, padded) in payload_base64 instead; the two fields exclude each
// other. headers is an object of JSON values (numbers are kept as
// json.Number). id, when present, must be non-empty and at most MaxIDLen
// bytes; expires_at is an RFC 3339 timestamp. Unknown fields and data
// after the object are refused, so a misspelt field name is reported
// rather than ignored. The subject may be empty here; the receiver
// decides whether it can take it from elsewhere.
//
// Every refusal is a *BodyError naming the field and byte offset.
func ParseBody(body []byte) (*messaging.Envelope, error) {
	env, _, err := parseBody(body)
	return env, err
}

// parseBody is ParseBody that also reports whether the body named an id.
func parseBody(body []byte) (*messaging.Envelope, bool, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, false, bodyErr("", -1, "empty body: expected a JSON object")
	}
	var w wireEnvelope
	if fastParse(body, &w) {
		env, err := fromWire(&w)
		return env, err == nil && w.ID != "", err
	}
	w = wireEnvelope{}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&w); err != nil {
		return nil, false, decodeError(err, dec.InputOffset(), body)
	}
	if off := dec.InputOffset(); len(bytes.TrimSpace(body[off:])) > 0 {
		return nil, false, bodyErr("", off+int64(len(body[off:])-len(bytes.TrimLeft(body[off:], " \t\r\n"))),
			"unexpected data after the JSON object")
	}
	env, err := fromWire(&w)
	return env, err == nil && w.ID != "", err
}

// decodeError turns an encoding/json error into a BodyError.
func decodeError(err error, off int64, body []byte) *BodyError {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syn):
		// Offset counts the bytes read, the offending one included.
		return bodyErr("", max(syn.Offset-1, 0), "malformed JSON: %s", strings.TrimPrefix(syn.Error(), "json: "))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return bodyErr("", typ.Offset, "expected a JSON object, got %s", typ.Value)
		}
		return bodyErr(typ.Field, typ.Offset, "expected %s, got %s", typeName(typ.Field), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return bodyErr("", int64(len(body)), "truncated JSON: the body ends inside a value")
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if name, ok := strings.CutPrefix(msg, "unknown field "); ok {
		// The decoder stops after the field's value; point at its name.
		if i := bytes.LastIndex(body[:min(off, int64(len(body)))], []byte(name)); i >= 0 {
			off = int64(i)
		}
		return bodyErr(strings.Trim(name, `"`), off, "unknown field; expected id, subject, payload, payload_base64, headers or expires_at")
	}
	return bodyErr("", off, "%s", msg)
}

// typeName says what a field of the envelope must hold.
func typeName(field string) string {
	switch {
	case field == "headers":
		return "an object"
	case strings.HasPrefix(field, "headers."):
		return "a JSON value"
	default:
		return "a string"
	}
}

// fromWire validates the decoded fields and builds the envelope.
func fromWire(w *wireEnvelope) (*messaging.Envelope, error) {
	var payload []byte
	switch {
	case w.PayloadBase64 != nil && len(w.Payload) > 0:
		return nil, bodyErr("payload_base64", -1, "cannot be combined with payload; send one of them")
	case w.PayloadBase64 != nil:
		p, err := base64.StdEncoding.DecodeString(*w.PayloadBase64)
		if err != nil {
			var ce base64.CorruptInputError
			if errors.As(err, &ce) {
				return nil, bodyErr("payload_base64", -1, "invalid base64 at character %d", int64(ce))
			}
			return nil, bodyErr("payload_base64", -1, "invalid base64: %v", err)
		}
		payload = p
	case len(w.Payload) > 0 && w.Payload[0] == '"':
		var s string
		if err := json.Unmarshal(w.Payload, &s); err != nil {
			return nil, bodyErr("payload", -1, "invalid string: %v", err)
		}
		payload = []byte(s)
	case string(w.Payload) == "null":
	default:
		payload = w.Payload // the decoder's own copy: nothing else holds it
	}
	if len(w.Subject) > MaxSubjectLen {
		return nil, bodyErr("subject", -1, "longer than %d bytes", MaxSubjectLen)
	}
	var env *messaging.Envelope
	if w.ID != "" {
		if err := checkID(w.ID); err != nil {
			return nil, bodyErr("id", -1, "%s", err)
		}
		// Built by hand so that no ID is generated only to be replaced.
		// The payload is the decoder's own copy, so it may be adopted.
		env = &messaging.Envelope{ID: w.ID, Subject: w.Subject, Headers: make(map[string]any, len(w.Headers)+4),
			CreatedAt: time.Now().UTC()}
		env.SetPayload(payload)
	} else {
		env = messaging.NewEnvelopeFromImmutablePayload(w.Subject, payload)
	}
	for k, v := range w.Headers {
		if k == "" {
			return nil, bodyErr("headers", -1, "empty header name")
		}
		env.Headers[k] = v
	}
	if w.ExpiresAt != "" {
		t, err := time.Parse(time.RFC3339Nano, w.ExpiresAt)
		if err != nil {
			return nil, bodyErr("expires_at", -1, "must be an RFC 3339 timestamp such as 2030-01-02T15:04:05Z; got %q", w.ExpiresAt)
		}
		env.ExpiresAt = t
	}
	return env, nil
}

// checkID validates a client-chosen message ID.
func checkID(id string) error {
	if len(id) > MaxIDLen {
		return fmt.Errorf("longer than %d bytes", MaxIDLen)
	}
	if !validHeaderValue(id) {
		return errors.New("contains control characters")
	}
	return nil
}
