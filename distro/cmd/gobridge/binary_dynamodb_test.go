package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// dynamoEmulator builds tools/dynamoemu, starts it on a free loopback
// port and returns its URL. The emulator ends with the test, and also
// when the test process dies, since its stdin closes then.
func dynamoEmulator(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "dynamoemu")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..", "..", "tools", "dynamoemu")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building dynamoemu: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-exit-on-stdin-close")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
	}()
	select {
	case l, ok := <-line:
		url, found := strings.CutPrefix(l, "listening on ")
		if !ok || !found {
			t.Fatalf("dynamoemu printed %q, want its address", l)
		}
		return url
	case <-time.After(20 * time.Second):
		t.Fatal("dynamoemu did not report its address within 20s")
	}
	return ""
}

// dynamoConfig is one bridge of the shared-table test: an HTTP ingress
// persisting to a DynamoDB outbox that every bridge of the test shares,
// drained to the webhook at hookURL.
func dynamoConfig(id string, p testPorts, endpoint, hookURL string) string {
	store := fmt.Sprintf(`{type: dynamodb, settings: {endpoint: %q, region: us-east-1, access_key_id: test, secret_access_key: test, table_prefix: shared_, create_tables: true}}`, endpoint)
	return fmt.Sprintf(`
bridge: {id: %s, shutdown_timeout: 5s}
receivers:
  - id: http-in
    type: http
    settings: {listen: "127.0.0.1:%d", paths: [/publish]}
senders:
  - id: hook
    type: webhook
    settings: {url: "%s/accept"}
bindings:
  - {id: to-hook, sender_id: hook}
routes:
  - id: orders
    receiver_id: http-in
    delivery_mode: shared_outbox
    bindings: [to-hook]
    policy:
      ack_after: outbox_persist
      backoff: {initial_interval: 50ms, max_interval: 200ms}
stores:
  outbox: %s
  dlq: %s
http:
  admin_addr: "127.0.0.1:%d"
  monitor_addr: "127.0.0.1:%d"
  admin_api_key: %s
`, id, p.ingress, hookURL, store, store, p.admin, p.monitor, testKey)
}

// metricSum adds up the samples of a metric on a bridge's monitor API.
func metricSum(t *testing.T, p testPorts, name string) float64 {
	t.Helper()
	var sum float64
	sc := bufio.NewScanner(strings.NewReader(scrape(t, p)))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		f := strings.Fields(line)
		if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
			sum += v
		}
	}
	return sum
}

// TestBinaryTwoBridgesShareDynamoDBTables runs two gobridge processes
// with their own data directories on one DynamoDB table set (minidyn over
// HTTP, through tools/dynamoemu). Each takes half the messages at its
// ingress and each drains the one shared outbox partition at the same
// time, so their claims race for the same records. Every message must
// reach the webhook exactly once (a claim is a conditional update only one
// claimer wins, and no claim runs long enough to go stale), both bridges
// must have delivered some, and neither may see a store error.
func TestBinaryTwoBridgesShareDynamoDBTables(t *testing.T) {
	endpoint := dynamoEmulator(t)
	hook := newHook(t)
	const total = 300
	var bridges []testPorts
	for i := range 2 {
		p := newPorts(t)
		dir := t.TempDir()
		cfg := filepath.Join(dir, "bridge.yaml")
		if err := os.WriteFile(cfg, []byte(dynamoConfig(fmt.Sprintf("ddb-%d", i), p, endpoint, hook.URL)), 0o600); err != nil {
			t.Fatal(err)
		}
		startBinary(t, cfg, filepath.Join(dir, "data"), p)
		bridges = append(bridges, p)
	}
	var wg sync.WaitGroup
	for b, p := range bridges {
		wg.Go(func() {
			for n := b; n < total; n += len(bridges) {
				body := fmt.Sprintf(`{"subject":"orders.created","payload":{"n":%d}}`, n)
				if code := post(t, p, body, nil); code/100 != 2 {
					t.Errorf("bridge %d: publish %d: status %d", b, n, code)
					return
				}
			}
		})
	}
	wg.Wait()
	seen := map[int]int{}
	eventually(t, "every message at the webhook", func() bool {
		clear(seen)
		for _, raw := range hook.accepted() {
			var msg struct {
				Payload struct{ N int } `json:"payload"`
			}
			if err := json.Unmarshal([]byte(raw), &msg); err == nil {
				seen[msg.Payload.N]++
			}
		}
		return len(seen) == total
	}, func() string { return fmt.Sprintf("%d of %d distinct messages arrived", len(seen), total) })
	for n, c := range seen {
		if c != 1 {
			t.Errorf("message %d delivered %d times", n, c)
		}
	}
	for b, p := range bridges {
		delivered := metricSum(t, p, "gobridge_outbox_delivered_total")
		storeErrs := metricSum(t, p, "gobridge_outbox_store_errors_total")
		t.Logf("bridge %d delivered %v, store errors %v", b, delivered, storeErrs)
		if delivered == 0 {
			t.Errorf("bridge %d delivered nothing: it did not drain the shared outbox", b)
		}
		if storeErrs != 0 {
			t.Errorf("bridge %d: %v store errors", b, storeErrs)
		}
	}
}
