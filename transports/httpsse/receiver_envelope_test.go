package httpsse

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestIngressEnvelope checks the message a route receives for a request.
func TestIngressEnvelope(t *testing.T) {
	raw := ReceiverConfig{Body: BodyRaw}
	const generated = "<generated>"
	tests := []struct {
		name   string
		cfg    ReceiverConfig
		path   string
		ctype  string
		header http.Header
		body   string
		want   envView
	}{
		{name: "json object payload",
			body: `{"id":"m1","subject":"orders.created","payload":{"n": 1, "s":"x"},"headers":{"k":"v","n":2}}`,
			want: envView{ID: "m1", Subject: "orders.created", Payload: `{"n": 1, "s":"x"}`,
				Headers: map[string]any{"k": "v", "n": json.Number("2")}}},
		{name: "string payload", body: `{"subject":"s","payload":"héllo\n"}`,
			want: envView{ID: generated, Subject: "s", Payload: "héllo\n", Headers: map[string]any{}}},
		{name: "base64 payload", body: `{"subject":"s","payload_base64":"AAEC/w=="}`,
			want: envView{ID: generated, Subject: "s", Payload: "\x00\x01\x02\xff", Headers: map[string]any{}}},
		{name: "null payload", body: `{"subject":"s","payload":null}`,
			want: envView{ID: generated, Subject: "s", Headers: map[string]any{}}},
		{name: "subject from path", path: "/publish/orders.created", body: `{"payload":[1,2]}`,
			want: envView{ID: generated, Subject: "orders.created", Payload: "[1,2]", Headers: map[string]any{}}},
		{name: "body subject wins", path: "/publish/from-path", body: `{"subject":"from-body"}`,
			header: http.Header{"Gobridge.subject": {"from-header"}},
			want:   envView{ID: generated, Subject: "from-body", Headers: map[string]any{}}},
		{name: "header subject beats path", path: "/publish/from-path", body: `{}`,
			header: http.Header{"Gobridge.subject": {"from-header"}},
			want:   envView{ID: generated, Subject: "from-header", Headers: map[string]any{}}},
		{name: "prefixed headers", cfg: ReceiverConfig{HeaderPrefix: "X-Meta-"}, body: `{"subject":"s","headers":{"a":"body"}}`,
			header: http.Header{"X-Meta-Tenant": {"acme"}, "X-Meta-A": {"header"}, "X-Meta-": {"empty name"}},
			want:   envView{ID: generated, Subject: "s", Headers: map[string]any{"tenant": "acme", "a": "body"}}},
		{name: "idempotency key becomes id", header: http.Header{"Idempotency-Key": {"key-1"}}, body: `{"subject":"s"}`,
			want: envView{ID: "key-1", Subject: "s", Headers: map[string]any{"idempotency-key": "key-1"}}},
		{name: "body id wins over key", header: http.Header{"Idempotency-Key": {"key-1"}}, body: `{"id":"m9","subject":"s"}`,
			want: envView{ID: "m9", Subject: "s", Headers: map[string]any{"idempotency-key": "key-1"}}},
		{name: "reserved headers pass to the route", body: `{"subject":"s","headers":{"x-bridge.tenant-id":"t1"}}`,
			want: envView{ID: generated, Subject: "s", Headers: map[string]any{"x-bridge.tenant-id": "t1"}}},
		{name: "trace and forwarded headers",
			cfg: ReceiverConfig{ForwardHeaders: []string{"X-Tenant"}},
			header: http.Header{"Traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
				"X-Tenant": {"acme", "globex"}, "X-Other": {"dropped"}},
			body: `{"subject":"s","headers":{"x-tenant":"from-body"}}`,
			want: envView{ID: generated, Subject: "s", Headers: map[string]any{
				"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "x-tenant": "from-body"}}},
		{name: "raw body, subject from path", cfg: raw, path: "/publish/sensors/t1", ctype: "text/plain; charset=utf-8",
			body: "21.5", want: envView{ID: generated, Subject: "sensors/t1", Payload: "21.5",
				Headers: map[string]any{"content-type": "text/plain; charset=utf-8"}}},
		{name: "raw body, subject from header", cfg: raw, ctype: "-",
			header: http.Header{"Gobridge.subject": {"orders.created"}, "Idempotency-Key": {"k"}},
			body:   `{"not":"an envelope"}`, want: envView{ID: "k", Subject: "orders.created", Payload: `{"not":"an envelope"}`,
				Headers: map[string]any{"idempotency-key": "k"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make(chan *messaging.Envelope, 1)
			_, base := startReceiver(t, tt.cfg, settling(ports.Settlement{Outcome: ports.SettledAcked, Terminal: true}, 0, got))
			path := tt.path
			if path == "" {
				path = "/publish"
			}
			req := post(t, base+path, tt.body)
			switch tt.ctype {
			case "":
			case "-":
				req.Header.Del("Content-Type")
			default:
				req.Header.Set("Content-Type", tt.ctype)
			}
			for k, v := range tt.header {
				req.Header[k] = v
			}
			if a := do(t, req); a.Status != http.StatusOK {
				t.Fatalf("status %d: %+v", a.Status, a.Body.Error)
			}
			env := <-got
			v := view(env)
			if tt.want.ID == generated {
				if len(v.ID) != 36 {
					t.Errorf("generated ID %q is not a UUID", v.ID)
				}
				v.ID = generated
			}
			if diff := cmp.Diff(tt.want, v, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("envelope (-want +got):\n%s", diff)
			}
			if time.Since(env.CreatedAt) > time.Minute || env.HasExpiry() {
				t.Errorf("CreatedAt %v, ExpiresAt %v", env.CreatedAt, env.ExpiresAt)
			}
		})
	}
}

func TestIngressExpiry(t *testing.T) {
	got := make(chan *messaging.Envelope, 1)
	_, base := startReceiver(t, ReceiverConfig{}, settling(ports.Settlement{Outcome: ports.SettledAcked, Terminal: true}, 0, got))
	do(t, post(t, base+"/publish", `{"subject":"s","expires_at":"2030-01-02T15:04:05+01:00"}`))
	want := time.Date(2030, 1, 2, 14, 4, 5, 0, time.UTC)
	if env := <-got; !env.ExpiresAt.Equal(want) {
		t.Errorf("ExpiresAt %v, want %v", env.ExpiresAt, want)
	}
	a := do(t, post(t, base+"/publish", `{"subject":"s","expires_at":"tomorrow"}`))
	if a.Status != http.StatusBadRequest || a.Body.Error == nil || a.Body.Error.Field != "expires_at" ||
		!strings.Contains(a.Body.Error.Message, "RFC 3339") {
		t.Errorf("bad expiry answered %d %+v", a.Status, a.Body.Error)
	}
}
