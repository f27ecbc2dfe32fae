package amqp10

import (
	"strings"
	"testing"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// FuzzHeaderMapping checks the envelope ↔ AMQP 1.0 message mapping
// through the wire encoding: headers outside the amqp10. namespace, the
// subject and a set id survive a round trip; a producer's
// application-properties never put anything into the amqp10. namespace;
// nothing panics.
func FuzzHeaderMapping(f *testing.F) {
	f.Add("app", "v", "subject", "id-1", "x-opt-k", "av")
	f.Add("amqp10.delivery-count", "99", "", "", "x-opt-a", "")
	f.Add("AMQP10.Annotation.x-opt-a", "forged", "s", "i", "x-ok", "1")
	f.Add(messaging.HeaderCorrelationID, "c", "s", "i", "", "")
	f.Add("x-bridge.tenant-id", "t", "s/ub", "", "k", "v")
	now := time.Unix(1700000000, 0)
	f.Fuzz(func(t *testing.T, key, value, subject, id, annKey, annValue string) {
		// Round trip of an envelope.
		env := messaging.NewEnvelope(subject, []byte(value))
		env.ID = id
		env.Headers = map[string]any{key: value, HeaderAnnotationPrefix + annKey: annValue}
		got, ok := roundTrip(t, toMessage(env, true, now), now)
		if !ok {
			return
		}
		if got.Subject != subject || (id != "" && got.ID != id) || string(got.PayloadView()) != value {
			t.Fatalf("subject/id/payload %q %q %q, want %q %q %q", got.Subject, got.ID, got.PayloadView(), subject, id, value)
		}
		if !inNamespace(key) {
			if v, _ := got.HeaderString(key); v != value {
				t.Fatalf("header %q = %v, want %q", key, got.Headers[key], value)
			}
		}
		// A producer's application-properties alone.
		m := &amqp.Message{Data: [][]byte{nil}, ApplicationProperties: map[string]any{key: value, annKey: annValue}}
		got, ok = roundTrip(t, m, now)
		if !ok {
			return
		}
		for k := range got.Headers {
			if inNamespace(k) {
				t.Fatalf("producer value under %q survived (headers %v)", k, got.Headers)
			}
		}
	})
}

// roundTrip encodes m, decodes it and maps it to an envelope. ok is false
// when go-amqp refuses to encode the input (it is not valid AMQP).
func roundTrip(t *testing.T, m *amqp.Message, now time.Time) (*messaging.Envelope, bool) {
	b, err := m.MarshalBinary()
	if err != nil {
		return nil, false
	}
	var back amqp.Message
	if err := back.UnmarshalBinary(b); err != nil {
		if strings.Contains(err.Error(), "utf") {
			return nil, false
		}
		t.Fatalf("decoding what was encoded: %v", err)
	}
	return fromMessage(&back, now), true
}
