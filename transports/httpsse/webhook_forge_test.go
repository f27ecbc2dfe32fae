package httpsse

import (
	"net/http"
	"testing"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestWebhookMessageHeadersCannotReplaceConfiguredOrDerived sends, in raw
// mode, one message per header the sender configures or derives, each
// with an envelope header that tries to replace it (directly or through
// header_map): the endpoint sees the configured and derived values.
func TestWebhookMessageHeadersCannotReplaceConfiguredOrDerived(t *testing.T) {
	rec, srv := newRecorder(t, http.StatusOK, nil)
	s := newTestWebhook(t, WebhookConfig{
		URL: srv.URL, Body: BodyRaw, SigningSecret: "s3cret",
		Headers:   map[string]string{"X-Api-Key": "configured-key", "Authorization": "Bearer configured"},
		HeaderMap: map[string]string{"app-key": "X-Api-Key", "app-id": "Idempotency-Key"},
	})
	const body = "payload"
	want := map[string]string{
		"X-Api-Key": "configured-key", "Authorization": "Bearer configured",
		"Idempotency-Key": "m-1", SubjectHeader: "orders.created",
		"User-Agent": "gobridge-webhook", DefaultSignatureHeader: Sign([]byte("s3cret"), []byte(body)),
	}
	tests := []struct {
		name  string
		key   string // the envelope header
		value string
		check string // the request header it tries to replace
	}{
		{"configured header", "X-Api-Key", "forged", "X-Api-Key"},
		{"configured header in lower case", "x-api-key", "forged", "X-Api-Key"},
		{"configured header through header_map", "app-key", "forged", "X-Api-Key"},
		{"configured authorization", "Authorization", "Bearer forged", "Authorization"},
		{"idempotency key", "Idempotency-Key", "forged", "Idempotency-Key"},
		{"idempotency key through header_map", "app-id", "forged", "Idempotency-Key"},
		{"subject", SubjectHeader, "forged.subject", SubjectHeader},
		{"user agent", "User-Agent", "forged", "User-Agent"},
		{"signature", DefaultSignatureHeader, "sha256=00", DefaultSignatureHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := messaging.NewEnvelope("orders.created", []byte(body))
			env.ID = "m-1"
			env.SetHeader(tt.key, tt.value)
			if err := s.Send(t.Context(), ports.OutboundMessage{Envelope: env}); err != nil {
				t.Fatal(err)
			}
			got := rec.last(t).Header
			if v := got.Values(tt.check); len(v) != 1 || v[0] != want[tt.check] {
				t.Errorf("%s = %q, want %q", tt.check, v, want[tt.check])
			}
		})
	}
}
