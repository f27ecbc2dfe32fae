package httpsse

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func offset(n int64) *int64 { return &n }

// TestRequestRefusals covers what the ingress answers before a message
// reaches a route.
func TestRequestRefusals(t *testing.T) {
	auth := ReceiverConfig{BearerKeys: []string{"ingress-key-one-0001", "ingress-key-two-0002"}}
	small := ReceiverConfig{MaxBodyBytes: 16}
	refusal := func(status int, code, msg string) answer {
		return answer{Status: status, Body: Response{Status: "error", Error: &ResponseError{Code: code, Message: msg}}}
	}
	tests := []struct {
		name     string
		cfg      ReceiverConfig
		method   string
		path     string
		ctype    string
		header   http.Header
		body     string
		chunked  bool
		want     answer
		wantAuth string // WWW-Authenticate
	}{
		{name: "accepted", body: `{"subject":"s"}`, want: answer{Status: 200}},
		{name: "missing content type", ctype: "-", body: `{}`,
			want: refusal(415, "INVALID_PAYLOAD", "missing Content-Type; send Content-Type: application/json")},
		{name: "form content type", ctype: "application/x-www-form-urlencoded", body: `{}`,
			want: refusal(415, "INVALID_PAYLOAD", "Content-Type application/x-www-form-urlencoded is not accepted; send Content-Type: application/json")},
		{name: "json with charset", ctype: "application/json; charset=utf-8", body: `{"subject":"s"}`, want: answer{Status: 200}},
		{name: "wildcard type", cfg: ReceiverConfig{Body: BodyRaw, ContentTypes: []string{"text/*"}}, path: "/publish/s",
			ctype: "text/csv", body: "a,b", want: answer{Status: 200}},
		{name: "malformed", body: `{"subject": "s",}`,
			want: answer{Status: 400, Body: Response{Status: "error", Error: &ResponseError{Code: "INVALID_PAYLOAD",
				Message: "malformed JSON: invalid character '}' looking for beginning of object key string (at byte 16)", Offset: offset(16)}}}},
		{name: "wrong type", body: `{"subject": 42}`,
			want: answer{Status: 400, Body: Response{Status: "error", Error: &ResponseError{Code: "INVALID_PAYLOAD",
				Message: "field subject: expected a string, got number (at byte 14)", Field: "subject", Offset: offset(14)}}}},
		{name: "unknown field", body: `{"subjct": "s"}`,
			want: answer{Status: 400, Body: Response{Status: "error", Error: &ResponseError{Code: "INVALID_PAYLOAD",
				Message: "field subjct: unknown field; expected id, subject, payload, payload_base64, headers or expires_at (at byte 1)",
				Field:   "subjct", Offset: offset(1)}}}},
		{name: "missing subject", body: `{"payload": "x"}`,
			want: answer{Status: 400, Body: Response{Status: "error", Error: &ResponseError{Code: "INVALID_PAYLOAD",
				Message: `field subject: missing: set the "subject" field of the JSON body`, Field: "subject"}}}},
		{name: "declared too large", cfg: small, body: `{"subject":"long enough"}`,
			want: refusal(413, "INVALID_PAYLOAD", "the body has 25 bytes; the limit is 16")},
		{name: "streamed too large", cfg: small, chunked: true, body: `{"subject":"long enough"}`,
			want: refusal(413, "INVALID_PAYLOAD", "the body exceeds the limit of 16 bytes")},
		{name: "no key", cfg: auth, body: `{"subject":"s"}`,
			want: refusal(401, "NOT_AUTHORIZED", "missing or invalid bearer key"), wantAuth: `Bearer realm="gobridge"`},
		{name: "wrong key", cfg: auth, header: http.Header{"Authorization": {"Bearer k3"}}, body: `{"subject":"s"}`,
			want:     refusal(401, "NOT_AUTHORIZED", "missing or invalid bearer key"),
			wantAuth: `Bearer realm="gobridge", error="invalid_token"`},
		{name: "basic auth", cfg: auth, header: http.Header{"Authorization": {"Basic azE6"}}, body: `{"subject":"s"}`,
			want: refusal(401, "NOT_AUTHORIZED", "missing or invalid bearer key"), wantAuth: `Bearer realm="gobridge"`},
		{name: "second key", cfg: auth, header: http.Header{"Authorization": {"bearer ingress-key-two-0002"}}, body: `{"subject":"s"}`,
			want: answer{Status: 200}},
		{name: "bad idempotency key", header: http.Header{"Idempotency-Key": {strings.Repeat("k", 300)}}, body: `{"subject":"s"}`,
			want: answer{Status: 400, Body: Response{Status: "error", Error: &ResponseError{Code: "INVALID_PAYLOAD",
				Message: "field Idempotency-Key header: longer than 256 bytes", Field: "Idempotency-Key header"}}}},
		{name: "raw without subject", cfg: ReceiverConfig{Body: BodyRaw}, ctype: "text/plain", body: "hi",
			want: answer{Status: 400, Body: Response{Status: "error", Error: &ResponseError{Code: "INVALID_PAYLOAD",
				Message: "field subject: missing: post to a path ending in the subject or send the gobridge.subject header", Field: "subject"}}}},
		{name: "get on ingress", method: http.MethodGet, want: answer{Status: 405}},
		{name: "unknown path", path: "/other", body: `{}`, want: answer{Status: 404}},
		{name: "health", method: http.MethodGet, path: "/healthz", cfg: auth, want: answer{Status: 200, Body: Response{Status: "ok"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base := startReceiver(t, tt.cfg, settling(ports.Settlement{Outcome: ports.SettledAcked, Terminal: true}, 0, nil))
			method, path := tt.method, tt.path
			if method == "" {
				method = http.MethodPost
			}
			if path == "" {
				path = "/publish"
			}
			var body io.Reader = strings.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(body) // hides the length: sent chunked
			}
			req, err := http.NewRequest(method, base+path, body)
			if err != nil {
				t.Fatal(err)
			}
			switch tt.ctype {
			case "":
				req.Header.Set("Content-Type", "application/json")
			case "-":
			default:
				req.Header.Set("Content-Type", tt.ctype)
			}
			for k, v := range tt.header {
				req.Header[k] = v
			}
			got, hdr := doHeader(t, req)
			gotAuth := hdr.Get("WWW-Authenticate")
			if tt.want.Body.Status == "" && got.Status < 300 {
				got.Body = Response{} // the accepted body is checked elsewhere
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if gotAuth != tt.wantAuth {
				t.Errorf("WWW-Authenticate %q, want %q", gotAuth, tt.wantAuth)
			}
		})
	}
}

// envView is the part of an envelope the ingress decides.
type envView struct {
	ID, Subject string
	Payload     string
	Headers     map[string]any
}

func view(env *messaging.Envelope) envView {
	return envView{env.ID, env.Subject, string(env.PayloadView()), env.Headers}
}
