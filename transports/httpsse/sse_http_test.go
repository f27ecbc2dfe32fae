package httpsse

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// TestSSESubscribeRequests covers the answers of the subscription
// endpoint that are not a stream.
func TestSSESubscribeRequests(t *testing.T) {
	s := newTestSSE(t, SSEConfig{BearerKeys: []string{"sekret-0123456789"}, AllowOrigins: []string{"https://app.example"}, MaxClients: 1})
	base := "http://" + s.Addr()
	type result struct {
		Status      int
		ContentType string
		AllowOrigin string
		Auth        string
	}
	tests := []struct {
		name   string
		method string
		path   string
		header http.Header
		want   result
	}{
		{"no key", "GET", "/events/a", nil,
			result{401, "application/json", "", `Bearer realm="gobridge"`}},
		{"wrong key", "GET", "/events/a", http.Header{"Authorization": {"Bearer nope"}},
			result{401, "application/json", "", `Bearer realm="gobridge", error="invalid_token"`}},
		{"no channel", "GET", "/events?access_token=sekret-0123456789", nil,
			result{400, "application/json", "", ""}},
		{"foreign origin", "GET", "/events/a?access_token=sekret-0123456789", http.Header{"Origin": {"https://evil.example"}},
			result{403, "application/json", "", ""}},
		{"preflight", "OPTIONS", "/events/a", http.Header{"Origin": {"https://app.example"}},
			result{204, "", "https://app.example", ""}},
		{"post not allowed", "POST", "/events/a", nil,
			result{405, "text/plain; charset=utf-8", "", ""}},
		{"query key and allowed origin", "GET", "/events/a?access_token=sekret-0123456789", http.Header{"Origin": {"https://app.example"}},
			result{200, "text/event-stream", "https://app.example", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(testContext(t), tt.method, base+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header {
				req.Header[k] = v
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got := result{resp.StatusCode, resp.Header.Get("Content-Type"),
				resp.Header.Get("Access-Control-Allow-Origin"), resp.Header.Get("WWW-Authenticate")}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
	// The stream above was closed with its test; a fresh one fits under
	// max_clients, a second one does not.
	ctx := testContext(t)
	waitFor(ctx, t, "the stream to be released", func() bool {
		s.hub.mu.Lock()
		defer s.hub.mu.Unlock()
		return s.hub.clients == 0
	})
	openSSE(ctx, t, base+"/events/a", http.Header{"Authorization": {"Bearer sekret-0123456789"}})
	resp, err := http.Get(base + "/events/b?access_token=sekret-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("over max_clients: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// TestSSEChannelEviction keeps at most max_channels channels: the least
// recently used idle one goes, ids stay monotonic when it comes back, and
// a channel with subscribers is never evicted.
func TestSSEChannelEviction(t *testing.T) {
	ctx := testContext(t)
	meter := telemetry.NewMemory()
	s := newTestSSE(t, SSEConfig{MaxChannels: 2}, WithMeter(meter))
	sendText(ctx, t, s, "a", "1")
	sendText(ctx, t, s, "a", "2")
	lastA := s.hub.channels["a"].last
	sendText(ctx, t, s, "b", "1")
	sendText(ctx, t, s, "c", "1") // evicts a, the least recently used
	if _, ok := s.hub.channels["a"]; ok || len(s.hub.channels) != 2 {
		t.Fatalf("channels after eviction: %v", keys(s.hub.channels))
	}
	sendText(ctx, t, s, "a", "3") // evicts b
	if got := s.hub.channels["a"].last; got <= lastA {
		t.Errorf("recreated channel id %d, want above %d", got, lastA)
	}
	openSSE(ctx, t, "http://"+s.Addr()+"/events/a", nil)
	openSSE(ctx, t, "http://"+s.Addr()+"/events/c", nil)
	if err := s.Send(ctx, msgTo("d")); err == nil || !strings.Contains(err.Error(), "max_channels") {
		t.Errorf("send to a third channel while both have subscribers: %v", err)
	}
	if n := meter.Value("gobridge_sse_channels_evicted_total", "sse"); n != 2 {
		t.Errorf("evictions %v, want 2", n)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
