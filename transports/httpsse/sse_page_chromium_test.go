//go:build unix

package httpsse

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// TestChromiumDemoPageSubscribesWithTheKey opens the demo page of a
// sender that requires bearer keys in headless Chromium, with the key in
// the page's address: the page's script runs under its own
// Content-Security-Policy, and its EventSource subscribes to the channel
// the address names, passing the key on (without it the stream answers
// 401 and nobody subscribes).
func TestChromiumDemoPageSubscribesWithTheKey(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		itest.Unavailable(t, "%s is missing; run scripts/ensure-chromium.sh", chromiumPath)
	}
	ctx := testContext(t)
	const key = "demo-page-key-0123456789"
	meter := telemetry.NewMemory()
	sse := newTestSSE(t, SSEConfig{Listen: "-", DemoPage: "/watch", BearerKeys: []string{key}}, WithMeter(meter))
	streams := make(chan string, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/events" {
			select {
			case streams <- r.URL.Query().Get("channel"):
			default:
			}
		}
		sse.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close) // after Chromium is gone (cleanups run last first)

	stderr := launchChromium(ctx, t, srv.URL+"/watch?channel=room&access_token="+key)
	select {
	case ch := <-streams:
		if ch != "room" {
			t.Errorf("the page subscribed to %q, want room", ch)
		}
	case <-ctx.Done():
		t.Fatalf("the page never subscribed: %v\nchromium stderr:\n%s", ctx.Err(), stderr())
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for meter.Value("gobridge_sse_subscribers", "sse") != 1 {
		select {
		case <-ctx.Done():
			t.Fatalf("the page's stream was not admitted: %v\nchromium stderr:\n%s", ctx.Err(), stderr())
		case <-tick.C:
		}
	}
}
