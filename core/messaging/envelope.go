package messaging

import (
	"maps"
	"time"
)

// Envelope is the normalised message that flows through a route.
//
// Subject is the logical event subject chosen by the producer. The runtime
// never rewrites it to carry a destination: destinations travel beside the
// envelope (see ports.OutboundMessage).
//
// Headers holds metadata. Values are usually strings, but transports may
// store numbers, booleans, byte slices, []any or map[string]any. Names that
// start with HeaderPrefix are reserved for the bridge.
//
// The payload is private so that its ownership rules hold: constructors and
// SetPayload decide whether a slice is copied or adopted, Payload returns a
// copy, and PayloadView lends the backing array read-only.
type Envelope struct {
	// ID identifies the message. NewEnvelope fills it with NewID.
	ID string
	// Subject is the logical subject, independent of any transport address.
	Subject string
	// Headers carries metadata; it may be nil on a hand-built Envelope.
	Headers map[string]any
	// CreatedAt is when the envelope was first created.
	CreatedAt time.Time
	// ExpiresAt is the optional expiry instant; the zero time means "never".
	ExpiresAt time.Time

	payload []byte
}

// NewEnvelope builds an envelope with a fresh ID, the current time as
// CreatedAt and a private copy of payload, so the caller may reuse its
// buffer afterwards. Use it at every trust boundary.
func NewEnvelope(subject string, payload []byte) *Envelope {
	return NewEnvelopeFromImmutablePayload(subject, clone(payload))
}

// NewEnvelopeFromImmutablePayload builds an envelope that adopts payload
// without copying it. Only call it when the slice is guaranteed never to be
// modified again for the envelope's lifetime, for example a buffer an SDK
// hands over and no longer touches.
func NewEnvelopeFromImmutablePayload(subject string, payload []byte) *Envelope {
	return &Envelope{
		ID:        NewID(),
		Subject:   subject,
		Headers:   make(map[string]any),
		CreatedAt: time.Now().UTC(),
		payload:   payload,
	}
}

// Payload returns a copy of the payload that the caller may modify freely.
func (e *Envelope) Payload() []byte { return clone(e.payload) }

// PayloadView returns the payload's backing array without copying it. The
// caller must treat it as read-only and must not keep it beyond the
// envelope's lifetime. It exists for hot paths such as condition evaluation
// and transport encoding.
func (e *Envelope) PayloadView() []byte { return e.payload }

// PayloadLen returns the payload size in bytes.
func (e *Envelope) PayloadLen() int { return len(e.payload) }

// SetPayload installs p as the new payload. The envelope takes ownership of
// p: the caller must not modify it afterwards. Processors that transform a
// payload build a fresh slice and hand it over here.
func (e *Envelope) SetPayload(p []byte) { e.payload = p }

// HasExpiry reports whether an expiry instant is set.
func (e *Envelope) HasExpiry() bool { return !e.ExpiresAt.IsZero() }

// IsExpired reports whether the envelope has an expiry at or before now.
// The caller supplies now so that a route can use its injected clock.
func (e *Envelope) IsExpired(now time.Time) bool {
	return e.HasExpiry() && !now.Before(e.ExpiresAt)
}

// RemainingTTL returns the time left until expiry at now, zero when already
// expired, and -1 when the envelope never expires.
func (e *Envelope) RemainingTTL(now time.Time) time.Duration {
	if !e.HasExpiry() {
		return -1
	}
	if d := e.ExpiresAt.Sub(now); d > 0 {
		return d
	}
	return 0
}

// Clone returns a copy whose headers are deep-copied and whose payload
// shares the immutable backing array.
func (e *Envelope) Clone() *Envelope {
	c := *e
	c.Headers = CloneHeaders(e.Headers)
	return &c
}

// CloneHeaders deep-copies a header map: nested maps, slices and byte
// slices are copied; scalar values are immutable and shared. A nil map
// yields an empty, non-nil map.
func CloneHeaders(h map[string]any) map[string]any {
	out := make(map[string]any, len(h))
	for k, v := range h {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return t
		}
		return CloneHeaders(t)
	case map[string]string:
		return maps.Clone(t)
	case []any:
		if t == nil {
			return t
		}
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = cloneValue(x)
		}
		return out
	case []string:
		return append([]string(nil), t...)
	case []byte:
		return clone(t)
	default:
		return v
	}
}

// HeaderString returns the header value as a string when it is a string or
// a byte slice.
func (e *Envelope) HeaderString(name string) (string, bool) {
	switch v := e.Headers[name].(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	default:
		return "", false
	}
}

// SetHeader sets a header, allocating the map when it is nil.
func (e *Envelope) SetHeader(name string, value any) {
	if e.Headers == nil {
		e.Headers = make(map[string]any)
	}
	e.Headers[name] = value
}

func clone(p []byte) []byte {
	if p == nil {
		return nil
	}
	return append(make([]byte, 0, len(p)), p...)
}
