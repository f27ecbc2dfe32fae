package httpsse

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestIngressRefusesCrossOriginBrowserPosts replays what a page of
// another site can make a visitor's browser send to a raw ingress
// without keys (a form post, a no-cors fetch) and what a listed origin or
// a non-browser client sends. Only the latter reach the route.
func TestIngressRefusesCrossOriginBrowserPosts(t *testing.T) {
	const key = "ingress-key-0123456789"
	open := ReceiverConfig{Body: BodyRaw}
	keyed := ReceiverConfig{Body: BodyRaw, BearerKeys: []string{key}}
	listed := ReceiverConfig{Body: BodyRaw, AllowOrigins: []string{"https://app.example"}}
	anyOrigin := ReceiverConfig{Body: BodyRaw, AllowOrigins: []string{"*"}}
	type result struct {
		Status      int
		Delivered   bool
		AllowOrigin string
	}
	tests := []struct {
		name   string
		cfg    ReceiverConfig
		header map[string]string
		want   result
	}{
		{"server to server, no browser headers", open,
			map[string]string{"Content-Type": "text/plain"}, result{200, true, ""}},
		{"form post from another site", open,
			map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://evil.example"}, result{403, false, ""}},
		{"text/plain fetch from another site", open,
			map[string]string{"Content-Type": "text/plain", "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, result{403, false, ""}},
		{"opaque origin (sandboxed frame)", open,
			map[string]string{"Content-Type": "text/plain", "Origin": "null"}, result{403, false, ""}},
		{"cross-site without Origin", open,
			map[string]string{"Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site"}, result{403, false, ""}},
		{"another site even with keys", keyed,
			map[string]string{"Content-Type": "text/plain", "Origin": "https://evil.example", "Authorization": "Bearer " + key}, result{403, false, ""}},
		{"same-origin form post without keys", open,
			map[string]string{"Content-Type": "text/plain", "Origin": "SELF", "Sec-Fetch-Site": "same-origin"}, result{403, false, ""}},
		{"same-origin json post without keys", open,
			map[string]string{"Content-Type": "application/json", "Origin": "SELF"}, result{200, true, ""}},
		{"same-origin form post with a key", keyed,
			map[string]string{"Content-Type": "text/plain", "Origin": "SELF", "Authorization": "Bearer " + key}, result{200, true, ""}},
		{"listed origin", listed,
			map[string]string{"Content-Type": "text/plain", "Origin": "https://app.example"}, result{200, true, "https://app.example"}},
		{"origin not listed", listed,
			map[string]string{"Content-Type": "application/json", "Origin": "https://app.example.evil"}, result{403, false, ""}},
		{"any origin", anyOrigin,
			map[string]string{"Content-Type": "text/plain", "Origin": "https://evil.example"}, result{200, true, "*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make(chan *messaging.Envelope, 1)
			r, base := startReceiver(t, tt.cfg, settling(ports.Settlement{Outcome: ports.SettledAcked}, 0, got))
			req, err := http.NewRequest(http.MethodPost, base+"/publish/s", strings.NewReader("payload"))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header {
				req.Header.Set(k, strings.ReplaceAll(v, "SELF", "http://"+r.Addr()))
			}
			a, hdr := doHeader(t, req)
			res := result{Status: a.Status, AllowOrigin: hdr.Get("Access-Control-Allow-Origin")}
			select {
			case <-got:
				res.Delivered = true
			default:
			}
			if diff := cmp.Diff(tt.want, res); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestIngressPreflight checks that a listed origin's page gets the CORS
// answer it needs to post JSON with a key, and that any other origin is
// refused before its browser sends the POST.
func TestIngressPreflight(t *testing.T) {
	_, base := startReceiver(t, ReceiverConfig{AllowOrigins: []string{"https://app.example"}}, settling(ports.Settlement{Outcome: ports.SettledAcked}, 0, nil))
	type result struct {
		Status       int
		AllowOrigin  string
		AllowMethods string
		AllowHeaders string
	}
	tests := []struct {
		origin string
		want   result
	}{
		{"https://app.example", result{204, "https://app.example", "POST", "authorization, content-type"}},
		{"https://evil.example", result{403, "", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodOptions, base+"/publish", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Origin", tt.origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			got := result{resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"),
				resp.Header.Get("Access-Control-Allow-Methods"), resp.Header.Get("Access-Control-Allow-Headers")}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
