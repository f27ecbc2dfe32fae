package httpsse

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSSEDemoPageValidate(t *testing.T) {
	tests := []struct {
		page string
		want []string
	}{
		{"", nil},
		{"/", nil},
		{"/watch", nil},
		{"/ui/watch", nil},
		{"watch", []string{`demo_page: "watch" must start with /`}},
		{"/watch/", []string{`demo_page: "/watch/" must not end with / (only / itself may)`}},
		{"/events", []string{`demo_page: "/events" is taken by the subscription path "/events"`}},
		{"/events/orders", []string{`demo_page: "/events/orders" is taken by the subscription path "/events"`}},
		{"/{channel}", []string{`demo_page: "/{channel}" may not contain wildcards`}},
		{"/watch?channel=a", []string{`demo_page: "/watch?channel=a" must be a plain path without spaces, query or fragment`}},
	}
	for _, tt := range tests {
		t.Run(tt.page, func(t *testing.T) {
			got := problemsOf(t, SSEConfig{DemoPage: tt.page}.Validate())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := NewSSESender(SSEConfig{Listen: "-", DemoPage: "/events"}); err == nil {
		t.Error("NewSSESender accepted a demo page on the subscription path")
	}
}

// TestSSEDemoPageServed checks what the page's path answers: the page,
// with a Content-Security-Policy that allows its own script (by digest)
// and nothing else, and the configuration escaped into it; no other path
// answers, and a sender without demo_page serves no page.
func TestSSEDemoPageServed(t *testing.T) {
	get := func(t *testing.T, h http.Handler, target string) (*http.Response, string) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		body, _ := io.ReadAll(rec.Result().Body)
		return rec.Result(), string(body)
	}
	tests := []struct {
		name, page, target string
		want               int
	}{
		{"root", "/", "/", http.StatusOK},
		{"root with a channel", "/", "/?channel=orders&access_token=k", http.StatusOK},
		{"below root", "/", "/other", http.StatusNotFound},
		{"named", "/watch", "/watch", http.StatusOK},
		{"below named", "/watch", "/watch/x", http.StatusNotFound},
		{"root without the page", "", "/", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSSE(t, SSEConfig{Listen: "-", DemoPage: tt.page, DefaultChannel: `a"<b>`})
			res, body := get(t, s.Handler(), tt.target)
			if res.StatusCode != tt.want {
				t.Fatalf("GET %s: status %d, want %d", tt.target, res.StatusCode, tt.want)
			}
			if tt.want != http.StatusOK {
				return
			}
			if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if !strings.Contains(body, `data-path="/events"`) || !strings.Contains(body, `data-channel="a&#34;&lt;b&gt;"`) {
				t.Errorf("the page does not carry the escaped configuration:\n%s", body)
			}
			digest := func(open, close string) string { // of the element's text, as the browser takes it
				_, text, _ := strings.Cut(body, open)
				text, _, _ = strings.Cut(text, close)
				sum := sha256.Sum256([]byte(text))
				return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
			}
			csp := res.Header.Get("Content-Security-Policy")
			for _, want := range []string{
				"default-src 'none'",
				"script-src " + digest("<script>", "</script>") + ";",
				"style-src " + digest("<style>", "</style>") + ";",
				"connect-src 'self'",
				"frame-ancestors 'none'",
			} {
				if !strings.Contains(csp, want) {
					t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
				}
			}
			if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q", got)
			}
		})
	}
}
