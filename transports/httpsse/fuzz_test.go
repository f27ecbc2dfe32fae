package httpsse

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzParseBody feeds arbitrary bodies to the ingress parser. It must
// never panic, must explain every refusal with a *BodyError, and what it
// accepts must survive MarshalEnvelope and a second parse unchanged.
func FuzzParseBody(f *testing.F) {
	f.Add([]byte(`{"subject":"orders.created","payload":{"n":1},"headers":{"k":"v"}}`))
	f.Add([]byte(`{"subject":"s","payload_base64":"AAEC/w==","id":"m1","expires_at":"2030-01-02T15:04:05Z"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		env, err := ParseBody(body)
		if err != nil {
			var be *BodyError
			if !errors.As(err, &be) {
				t.Fatalf("refusal %v is not a *BodyError", err)
			}
			if be.Offset > int64(len(body)) {
				t.Fatalf("offset %d beyond the %d-byte body", be.Offset, len(body))
			}
			return
		}
		first, err := MarshalEnvelope(env)
		if err != nil {
			t.Fatalf("MarshalEnvelope: %v", err)
		}
		again, err := ParseBody(first)
		if err != nil {
			t.Fatalf("ParseBody(MarshalEnvelope(x)) = %v for %s", err, first)
		}
		if !bytes.Equal(again.PayloadView(), env.PayloadView()) || again.ID != env.ID || again.Subject != env.Subject ||
			!again.ExpiresAt.Equal(env.ExpiresAt) {
			t.Fatalf("round trip changed the message: %s", first)
		}
		second, err := MarshalEnvelope(again)
		if err != nil || !bytes.Equal(first, second) {
			t.Fatalf("second encoding differs:\n%s\n%s", first, second)
		}
	})
}
