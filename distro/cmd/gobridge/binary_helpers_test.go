package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/itest"
	amqp "github.com/rabbitmq/amqp091-go"
)

// binPath is the gobridge binary built once for the tests that drive it.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gobridge-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "gobridge")
	out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building gobridge: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// ports are the four listeners of a test configuration.
type testPorts struct{ ingress, sse, admin, monitor int }

func newPorts(t *testing.T) testPorts {
	return testPorts{itest.FreePort(t), itest.FreePort(t), itest.FreePort(t), itest.FreePort(t)}
}

const testKey = "test-admin-key-0123456789"

// testConfig is the quickstart with the test's ports, a refusing SSE
// sender (so the outbox keeps what no browser took yet), a fast retry
// ladder, and a second binding to a webhook at hookURL that messages with
// the header x-route: hook are routed to.
func testConfig(p testPorts, hookURL string) string {
	return fmt.Sprintf(`
bridge: {id: e2e, shutdown_timeout: 10s}
receivers:
  - id: http-in
    type: http
    settings: {listen: "127.0.0.1:%d", paths: [/publish], forward_headers: [x-test, x-route]}
senders:
  - id: sse-out
    type: sse
    settings: {listen: "127.0.0.1:%d", path: /events, no_subscriber: refuse, heartbeat_interval: 1s}
  - id: hook
    type: webhook
    settings: {url: "%s"}
bindings:
  - {id: to-browsers, sender_id: sse-out, address: orders}
  - {id: to-hook, sender_id: hook}
processors:
  drop-tests:
    type: filter
    settings:
      action: drop
      conditions: [{field: header.x-test, operator: eq, value: "true"}]
  side:
    type: filter
    settings:
      action: route
      route_to: to-hook
      conditions: [{field: header.x-route, operator: eq, value: hook}]
  shape:
    type: transform
    settings:
      drop_unmapped: true
      mappings:
        - {source: $.id, target: order_id}
        - {source: $.total, target: total, transform: float}
routes:
  - id: orders
    receiver_id: http-in
    delivery_mode: shared_outbox
    bindings: [to-browsers, to-hook]
    processors: [drop-tests, side, shape]
    policy:
      ack_after: outbox_persist
      backoff: {initial_interval: 50ms, max_interval: 200ms}
stores:
  outbox: {type: sqlite, settings: {path: e2e.db}}
  dlq: {type: sqlite, settings: {path: e2e.db}}
http:
  admin_addr: "127.0.0.1:%d"
  monitor_addr: "127.0.0.1:%d"
  admin_api_key: %s
`, p.ingress, p.sse, hookURL, p.admin, p.monitor, testKey)
}

// proc is a running gobridge process.
type proc struct {
	cmd  *exec.Cmd
	logs *lockedBuffer
	done chan error
}

// startBinary runs `gobridge run -c cfg -data-dir dir` and waits until the
// monitor API says ready; it returns the process and how long that took.
func startBinary(t testing.TB, cfgPath, dataDir string, p testPorts) (*proc, time.Duration) {
	t.Helper()
	logs := &lockedBuffer{}
	cmd := exec.Command(binPath, "run", "-c", cfgPath, "-data-dir", dataDir)
	cmd.Stdout, cmd.Stderr = logs, logs
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr := &proc{cmd: cmd, logs: logs, done: make(chan error, 1)}
	go func() { pr.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-pr.done
		if t.Failed() {
			t.Logf("gobridge output:\n%s", logs.String())
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d/api/v1/monitor/ready", p.monitor)
	eventually(t, "gobridge ready", func() bool {
		select {
		case err := <-pr.done:
			pr.done <- err
			t.Fatalf("gobridge exited before it was ready: %v\n%s", err, logs.String())
		default:
		}
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, logs.String)
	return pr, time.Since(start)
}

// stop sends SIGTERM and waits for a clean exit.
func (p *proc) stop(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(sigterm); err != nil {
		t.Fatal(err)
	}
	p.waitExit(t)
}

// waitExit waits for the process to exit cleanly.
func (p *proc) waitExit(t testing.TB) {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		if err != nil {
			t.Fatalf("gobridge exited with %v\n%s", err, p.logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("gobridge did not stop within 30s")
	}
}

// post sends one JSON envelope to the ingress and returns the status.
func post(t *testing.T, p testPorts, body string, headers map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d/publish", p.ingress), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	// The monitor may report ready a moment before the ingress listener
	// accepts connections (receivers bind their listeners as they start):
	// a refused connection is tried again for a short while.
	var resp *http.Response
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for {
		var err error
		resp, err = http.DefaultClient.Do(req)
		if err == nil {
			break
		}
		select {
		case <-tick.C:
		case <-deadline:
			return 0
		}
		req.Body = io.NopCloser(strings.NewReader(body))
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// admin calls the admin API and decodes the JSON answer into out.
func admin(t *testing.T, p testPorts, method, path string, body []byte, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, fmt.Sprintf("http://127.0.0.1:%d/api/v1/admin%s", p.admin, path), bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, raw, err)
		}
	}
	return resp.StatusCode
}

// sseReader collects the data lines of an SSE stream.
type sseReader struct {
	mu     sync.Mutex
	events []string
	cancel context.CancelFunc
}

func subscribe(t *testing.T, p testPorts) *sseReader {
	t.Helper()
	return subscribeTo(t, p, "orders")
}

// subscribeTo opens the SSE stream of channel.
func subscribeTo(t *testing.T, p testPorts, channel string) *sseReader {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/events/%s", p.sse, channel), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	r := &sseReader{cancel: cancel}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				r.mu.Lock()
				r.events = append(r.events, data)
				r.mu.Unlock()
			}
		}
	}()
	t.Cleanup(cancel)
	return r
}

// waitFor polls until cond holds over the collected events.
func (r *sseReader) waitFor(t *testing.T, what string, cond func([]string) bool) []string {
	t.Helper()
	var evs []string
	eventually(t, what, func() bool {
		evs = r.snapshot()
		return cond(evs)
	}, func() string { return fmt.Sprintf("got %d events: %v", len(evs), evs) })
	return evs
}

// snapshot returns the events collected so far.
func (r *sseReader) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// waitAdmin polls cond for up to 20s.
func waitAdmin(t *testing.T, cond func() bool) {
	t.Helper()
	eventually(t, "admin API condition", cond, nil)
}

// eventually checks cond every few milliseconds until it holds, and fails
// t after 20s with what and, when given, detail().
func eventually(t testing.TB, what string, cond func() bool, detail func() string) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline.C:
			msg := ""
			if detail != nil {
				msg = detail()
			}
			t.Fatalf("timed out after 20s waiting for %s\n%s", what, msg)
		}
	}
}

// hookServer answers 400 on /refuse and records bodies posted to /accept.
type hookServer struct {
	*httptest.Server
	mu   sync.Mutex
	good []string
}

func newHook(t *testing.T) *hookServer {
	h := &hookServer{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/accept" {
			http.Error(w, "refused", http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.good = append(h.good, string(body))
		h.mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookServer) accepted() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.good...)
}

// scrape reads the Prometheus exposition from the monitor API.
func scrape(t *testing.T, p testPorts) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/metrics", p.monitor), nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("metrics: status %d: %s", resp.StatusCode, raw)
	}
	return string(raw)
}

// rabbitChannel opens a channel on the machine's RabbitMQ. The connection
// closes when t ends, after the cleanups the test registers later (such
// as deleting its queues), which still have the channel.
func rabbitChannel(t *testing.T) *amqp.Channel {
	t.Helper()
	conn, err := amqp.Dial("amqp://guest:guest@127.0.0.1:5672/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	return ch
}
