//go:build unix

package httpsse

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// chromiumPath is where Debian's chromium package installs the browser;
// scripts/ensure-chromium.sh installs it when missing.
const chromiumPath = "/usr/bin/chromium"

// ssePage subscribes with EventSource, reports every (re)connection, and
// posts what it saw once the "done" event arrives.
const ssePage = `<!doctype html>
<meta charset="utf-8"><title>gobridge sse</title>
<script>
const seen = [];
let opens = 0;
const report = (kind, body) => fetch('/report/' + kind, {method: 'POST', body: JSON.stringify(body)});
const es = new EventSource('/events/room');
es.onopen = () => { opens++; report('open', {opens: opens}); };
es.onmessage = (e) => {
  const env = JSON.parse(e.data);
  if (env.payload === 'done') {
    es.close();
    report('result', {opens: opens, events: seen});
    return;
  }
  seen.push({id: e.lastEventId, payload: env.payload, subject: env.subject});
};
</script>`

// cutWriter fails every write after limit events, which ends the stream
// the way a proxy or a server restart would.
type cutWriter struct {
	http.ResponseWriter
	events, limit int
}

func (cw *cutWriter) Write(b []byte) (int, error) {
	if cw.events >= cw.limit {
		return 0, errors.New("stream cut by the test")
	}
	if bytes.HasPrefix(b, []byte("id: ")) {
		cw.events++
	}
	return cw.ResponseWriter.Write(b)
}

func (cw *cutWriter) Unwrap() http.ResponseWriter { return cw.ResponseWriter }

// browserReport is what the page posts back.
type browserReport struct {
	Opens  int `json:"opens"`
	Events []struct {
		ID      string `json:"id"`
		Payload string `json:"payload"`
		Subject string `json:"subject"`
	} `json:"events"`
}

// TestChromiumEventSourceResume opens the SSE stream in headless
// Chromium. The server ends the first stream after three events; the
// browser reconnects on its own with Last-Event-ID, gets the events sent
// meanwhile from the replay buffer, then live ones, each exactly once.
func TestChromiumEventSourceResume(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		itest.Unavailable(t, "%s is missing; run scripts/ensure-chromium.sh", chromiumPath)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	meter := telemetry.NewMemory()
	sse := newTestSSE(t, SSEConfig{Listen: "-", ClientRetry: 200 * time.Millisecond, HeartbeatInterval: 50 * time.Millisecond},
		WithMeter(meter))

	var (
		conns     atomic.Int32
		lastIDs   = make(chan string, 8)
		firstCut  = make(chan struct{})
		release   = make(chan struct{})
		opens     = make(chan int, 8)
		results   = make(chan browserReport, 1)
		closeOnce sync.Once
	)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, ssePage)
	})
	mux.HandleFunc("GET /events/{channel...}", func(w http.ResponseWriter, r *http.Request) {
		n := conns.Add(1)
		lastIDs <- r.Header.Get("Last-Event-ID")
		switch n {
		case 1:
			sse.Handler().ServeHTTP(&cutWriter{ResponseWriter: w, limit: 3}, r)
			closeOnce.Do(func() { close(firstCut) })
			return
		case 2:
			select { // hold the reconnect until the test sent more events
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		sse.Handler().ServeHTTP(w, r)
	})
	mux.HandleFunc("POST /report/{kind}", func(w http.ResponseWriter, r *http.Request) {
		var rep browserReport
		if err := json.NewDecoder(r.Body).Decode(&rep); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch r.PathValue("kind") {
		case "open":
			opens <- rep.Opens
		case "result":
			results <- rep
		}
		w.WriteHeader(http.StatusNoContent)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	stderr := launchChromium(ctx, t, srv.URL+"/")
	wait := func(what string, ch <-chan int) {
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v\nchromium stderr:\n%s", what, ctx.Err(), stderr())
		}
	}
	wait("the first connection", opens)
	for i := 1; i <= 3; i++ {
		sendText(ctx, t, sse, "room", fmt.Sprint("e", i))
	}
	select {
	case <-firstCut:
	case <-ctx.Done():
		t.Fatalf("the first stream did not end: %v", ctx.Err())
	}
	for i := 4; i <= 6; i++ { // nobody is subscribed: they wait in the replay buffer
		sendText(ctx, t, sse, "room", fmt.Sprint("e", i))
	}
	close(release)
	wait("the reconnection", opens)
	for i := 7; i <= 8; i++ {
		sendText(ctx, t, sse, "room", fmt.Sprint("e", i))
	}
	sendText(ctx, t, sse, "room", "done")

	var rep browserReport
	select {
	case rep = <-results:
	case <-ctx.Done():
		t.Fatalf("no result from the page: %v\nchromium stderr:\n%s", ctx.Err(), stderr())
	}
	var payloads []string
	var prev uint64
	for _, ev := range rep.Events {
		payloads = append(payloads, ev.Payload)
		var id uint64
		if _, err := fmt.Sscan(ev.ID, &id); err != nil || id <= prev {
			t.Errorf("event %q has id %q after %d", ev.Payload, ev.ID, prev)
		}
		prev = id
		if ev.Subject != "s" {
			t.Errorf("event %q has subject %q", ev.Payload, ev.Subject)
		}
	}
	want := []string{"e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8"}
	if diff := cmp.Diff(want, payloads); diff != "" {
		t.Errorf("events seen by the page (-want +got):\n%s", diff)
	}
	if rep.Opens != 2 {
		t.Errorf("the page connected %d times, want 2", rep.Opens)
	}
	nextID := func() string {
		select {
		case id := <-lastIDs:
			return id
		default:
			return "<no connection>"
		}
	}
	if first, second := nextID(), nextID(); first != "" || len(rep.Events) < 3 || second != rep.Events[2].ID {
		t.Errorf("Last-Event-ID of the connections: %q then %q; want none, then the third event's id", first, second)
	}
	if n := meter.Value("gobridge_sse_events_replayed_total", "sse"); n != 3 {
		t.Errorf("replayed %v events, want 3", n)
	}
}

// launchChromium starts headless Chromium on url in its own process
// group, which is killed when the test ends (or ctx does). It returns a
// function giving what the browser wrote to stderr so far.
func launchChromium(ctx context.Context, t *testing.T, url string) func() string {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, chromiumPath,
		"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), url)
	var (
		mu  sync.Mutex
		out bytes.Buffer
	)
	cmd.Stdout = io.Discard
	cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(p)
	})
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start chromium: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait() // killed: the error only says so
	})
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return out.String()
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
