package httpsse

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestClassifyStatus(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	type result struct {
		Code       fault.Code
		Class      fault.Class
		RetryAfter time.Duration
	}
	tests := []struct {
		status     int
		retryAfter string
		want       result
	}{
		{200, "", result{}},
		{204, "", result{}},
		{408, "", result{fault.CodeTimeout, fault.ClassTransient, 0}},
		{429, "7", result{fault.CodeThrottled, fault.ClassTransient, 7 * time.Second}},
		{429, "Tue, 01 Jan 2030 00:00:30 GMT", result{fault.CodeThrottled, fault.ClassTransient, 30 * time.Second}},
		{429, "Mon, 31 Dec 2029 23:00:00 GMT", result{fault.CodeThrottled, fault.ClassTransient, 0}},
		{503, "86400", result{fault.CodeUnavailable, fault.ClassTransient, 5 * time.Minute}},
		{503, "soon", result{fault.CodeUnavailable, fault.ClassTransient, 0}},
		{502, "", result{fault.CodeUnavailable, fault.ClassTransient, 0}},
		{504, "", result{fault.CodeUnavailable, fault.ClassTransient, 0}},
		{500, "2", result{fault.CodeInternal, fault.ClassTransient, 2 * time.Second}},
		{400, "5", result{fault.CodeProtocolError, fault.ClassPermanent, 0}},
		{401, "", result{fault.CodeNotAuthorized, fault.ClassPermanent, 0}},
		{403, "", result{fault.CodeForbidden, fault.ClassPermanent, 0}},
		{404, "", result{fault.CodeNotFound, fault.ClassPermanent, 0}},
		{410, "", result{fault.CodeNotFound, fault.ClassPermanent, 0}},
		{409, "", result{fault.CodeAlreadyExists, fault.ClassPermanent, 0}},
		{413, "", result{fault.CodeProtocolError, fault.ClassPermanent, 0}},
		{422, "", result{fault.CodeProtocolError, fault.ClassPermanent, 0}},
		{302, "", result{fault.CodeProtocolError, fault.ClassPermanent, 0}},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.retryAfter != "" {
			h.Set("Retry-After", tt.retryAfter)
		}
		err := classifyStatus(tt.status, h, now, DefaultMaxRetryAfter)
		got := result{fault.CodeOf(err), fault.ClassOf(err), fault.RetryAfter(err)}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("status %d Retry-After %q (-want +got):\n%s", tt.status, tt.retryAfter, diff)
		}
	}
}

// recorder is an endpoint that answers with a configurable status and
// keeps what it got.
type recorder struct {
	mu     sync.Mutex
	status int
	header http.Header
	reqs   []recorded
}

type recorded struct {
	Path   string
	Header http.Header
	Body   string
}

func newRecorder(t *testing.T, status int, header http.Header) (*recorder, *httptest.Server) {
	t.Helper()
	rec := &recorder{status: status, header: header}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, recorded{r.URL.Path, r.Header.Clone(), string(b)})
		rec.mu.Unlock()
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.status)
	}))
	t.Cleanup(srv.Close)
	return rec, srv
}

func (rec *recorder) last(t *testing.T) recorded {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reqs) == 0 {
		t.Fatal("no request arrived")
	}
	return rec.reqs[len(rec.reqs)-1]
}

func TestWebhookRequestHeadersAndSignature(t *testing.T) {
	rec, srv := newRecorder(t, http.StatusOK, nil)
	s := newTestWebhook(t, WebhookConfig{
		URL: srv.URL + "/in/", Body: BodyRaw, SigningSecret: "s3cret", HeaderPrefix: "X-Meta-",
		Headers:   map[string]string{"Authorization": "Bearer tok"},
		HeaderMap: map[string]string{"tenant": "X-Tenant"},
	})
	env := messaging.NewEnvelope("orders.created", []byte("raw body"))
	env.ID = "m1"
	env.Headers = map[string]any{"tenant": "acme", "n": 3, "content-type": "text/plain", "bad\nname": "x",
		"host": "evil", "bin": []byte{0xff}, "crlf": "a\r\nb"}
	if err := s.Send(t.Context(), ports.OutboundMessage{Envelope: env, Address: "orders"}); err != nil {
		t.Fatal(err)
	}
	got := rec.last(t)
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write([]byte("raw body"))
	want := map[string]string{
		"Authorization": "Bearer tok", "Content-Type": "text/plain", "Idempotency-Key": "m1",
		"Gobridge.subject": "orders.created", "X-Meta-Tenant": "acme", "X-Meta-N": "3", "X-Tenant": "acme",
		"X-Meta-Bin": "/w==", "X-Gobridge-Signature-256": "sha256=" + hex.EncodeToString(mac.Sum(nil)),
		"User-Agent": "gobridge-webhook", "Content-Length": "8", "Accept-Encoding": "gzip",
		"X-Meta-Host": "evil", // prefixed, it no longer names the connection
	}
	gotH := map[string]string{}
	for k, v := range got.Header {
		gotH[k] = strings.Join(v, ",")
	}
	if diff := cmp.Diff(want, gotH); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if got.Path != "/in/orders" || got.Body != "raw body" {
		t.Errorf("path %q body %q", got.Path, got.Body)
	}
	if Sign([]byte("s3cret"), []byte("raw body")) != want["X-Gobridge-Signature-256"] {
		t.Error("Sign disagrees with the header")
	}
}

func TestWebhookTargets(t *testing.T) {
	rec, srv := newRecorder(t, http.StatusAccepted, nil)
	with := newTestWebhook(t, WebhookConfig{URL: srv.URL + "/base/default"})
	without := newTestWebhook(t, WebhookConfig{})
	tests := []struct {
		s        *WebhookSender
		addr     string
		wantPath string
		wantCode fault.Code
	}{
		{with, "", "/base/default", ""},
		{with, "other", "/base/other", ""},
		{with, "/root", "/root", ""},
		{with, srv.URL + "/abs", "/abs", ""},
		{with, "ftp://x/y", "", fault.CodeInvalidConfig},
		{without, srv.URL + "/abs2", "/abs2", ""},
		{without, "", "", fault.CodeInvalidConfig},
		{without, "relative", "", fault.CodeInvalidConfig},
	}
	for _, tt := range tests {
		err := tt.s.Send(t.Context(), ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", nil), Address: tt.addr})
		if fault.CodeOf(err) != tt.wantCode {
			t.Errorf("address %q: %v, want code %q", tt.addr, err, tt.wantCode)
			continue
		}
		if err == nil {
			if p := rec.last(t).Path; p != tt.wantPath {
				t.Errorf("address %q posted to %q, want %q", tt.addr, p, tt.wantPath)
			}
		}
	}
}

func TestWebhookFailures(t *testing.T) {
	_, down := newRecorder(t, http.StatusServiceUnavailable, http.Header{"Retry-After": {"3"}})
	s := newTestWebhook(t, WebhookConfig{URL: down.URL + "/secret-token/path"})
	err := s.Send(t.Context(), ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", nil)})
	if fault.CodeOf(err) != fault.CodeUnavailable || fault.RetryAfter(err) != 3*time.Second {
		t.Errorf("503: %v (retry after %v)", err, fault.RetryAfter(err))
	}

	unreachable := newTestWebhook(t, WebhookConfig{URL: "http://127.0.0.1:1/secret-token"})
	err = unreachable.Send(t.Context(), ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", nil)})
	if fault.CodeOf(err) != fault.CodeConnectionLost || strings.Contains(err.Error(), "secret-token") {
		t.Errorf("unreachable: %v; want CONNECTION_LOST without the URL path", err)
	}

	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-hang }))
	t.Cleanup(func() { close(hang); slow.Close() })
	timeout := newTestWebhook(t, WebhookConfig{URL: slow.URL, Timeout: 50 * time.Millisecond})
	err = timeout.Send(context.Background(), ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", nil)})
	if fault.CodeOf(err) != fault.CodeTimeout || !fault.IsRecoverable(err) {
		t.Errorf("timeout: %v", err)
	}
}

// TestWebhookBatchWholeFailure: a batch request answered 503 fails every
// message it carried, and only those.
func TestWebhookBatchWholeFailure(t *testing.T) {
	rec, srv := newRecorder(t, http.StatusServiceUnavailable, nil)
	s := newTestWebhook(t, WebhookConfig{URL: srv.URL + "/in", Batch: true, MaxBatchSize: 10})
	msgs := []ports.OutboundMessage{
		{Envelope: messaging.NewEnvelope("s", []byte("1"))},
		{Envelope: nil},
		{Envelope: messaging.NewEnvelope("s", []byte(`"2"`))},
	}
	res, err := s.SendBatch(t.Context(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	codes := make([]fault.Code, len(res))
	for i, r := range res {
		codes[i] = fault.CodeOf(r.Err)
	}
	if diff := cmp.Diff([]fault.Code{fault.CodeUnavailable, fault.CodeInvalidPayload, fault.CodeUnavailable}, codes); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if body := rec.last(t).Body; !strings.HasPrefix(body, `[{"id":`) || !strings.Contains(body, `"payload":1}`) ||
		!strings.Contains(body, `"payload":"\"2\""`) {
		t.Errorf("batch body %s", body)
	}
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if res, err := s.SendBatch(t.Context(), msgs); res != nil || fault.CodeOf(err) != fault.CodeUnavailable {
		t.Errorf("after Close: %v, %v", res, err)
	}
}
