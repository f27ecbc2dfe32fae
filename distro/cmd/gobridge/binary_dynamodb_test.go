package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
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
	return dynamoConfigIn("standalone", "shared_", id, p, endpoint, hookURL)
}

// dynamoConfigIn is dynamoConfig for a deployment (standalone or
// clustered) on the tables of prefix; a clustered bridge also keeps its
// leases there.
func dynamoConfigIn(deployment, prefix, id string, p testPorts, endpoint, hookURL string) string {
	store := fmt.Sprintf(`{type: dynamodb, settings: {endpoint: %q, region: us-east-1, access_key_id: test, secret_access_key: test, table_prefix: %s, create_tables: true}}`, endpoint, prefix)
	lease := ""
	if deployment == "clustered" {
		lease = "\n  lease: " + store
	}
	return fmt.Sprintf(`
bridge: {id: ddb, deployment: %s, instance_id: %s, shutdown_timeout: 5s}
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
  dlq: %s%s
http:
  admin_addr: "127.0.0.1:%d"
  monitor_addr: "127.0.0.1:%d"
  admin_api_key: %s
`, deployment, id, p.ingress, hookURL, store, store, lease, p.admin, p.monitor, testKey)
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

// TestBinaryClusteredHandoverOnDynamoDB runs two clustered gobridge
// processes on one DynamoDB table set: the first to start takes the
// outbox partition's lease and drains, the second persists what its
// ingress takes and waits. Stopping the active bridge mid-stream releases
// the lease; the standby takes it at a higher version and drains the
// rest. Every message arrives, and no bridge sees a store error, which is
// what a write with a fenced-off token would give.
func TestBinaryClusteredHandoverOnDynamoDB(t *testing.T) {
	endpoint := dynamoEmulator(t)
	hook := newHook(t)
	const total = 200
	var (
		ports []testPorts
		procs []*proc
	)
	for i, id := range []string{"node-a", "node-b"} {
		p := newPorts(t)
		dir := t.TempDir()
		cfg := filepath.Join(dir, "bridge.yaml")
		if err := os.WriteFile(cfg, []byte(dynamoConfigIn("clustered", "cl_", id, p, endpoint, hook.URL)), 0o600); err != nil {
			t.Fatal(err)
		}
		var pr *proc
		if i == 0 {
			pr, _ = startBinary(t, cfg, filepath.Join(dir, "data"), p)
			eventually(t, "node-a active", func() bool { return roleOf(p) == "active" }, pr.logs.String)
		} else {
			pr = startStandby(t, cfg, filepath.Join(dir, "data"), p)
		}
		ports, procs = append(ports, p), append(procs, pr)
	}
	publish := func(p testPorts, from, to int) {
		for n := from; n < to; n++ {
			body := fmt.Sprintf(`{"subject":"orders.created","payload":{"n":%d}}`, n)
			if code := post(t, p, body, nil); code/100 != 2 {
				t.Fatalf("publish %d: status %d", n, code)
			}
		}
	}
	publish(ports[0], 0, total/4)
	publish(ports[1], total/4, total/2)
	procs[0].stop(t) // steps down and releases the lease
	eventually(t, "node-b active", func() bool { return roleOf(ports[1]) == "active" }, procs[1].logs.String)
	publish(ports[1], total/2, total)
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
	if logs := procs[1].logs.String(); !strings.Contains(logs, "lease acquired; this instance is active") || !strings.Contains(logs, "owner=node-b version=2") {
		t.Errorf("node-b did not take the lease at version 2:\n%s", logs)
	}
	dups := 0
	for _, c := range seen {
		dups += c - 1
	}
	t.Logf("%d duplicates across the handover", dups)
	if errs := metricSum(t, ports[1], "gobridge_outbox_store_errors_total"); errs != 0 {
		t.Errorf("node-b: %v store errors", errs)
	}
	for i, pr := range procs {
		if strings.Contains(pr.logs.String(), "STALE_FENCING_TOKEN") {
			t.Errorf("node %d wrote with a fenced-off token:\n%s", i, pr.logs.String())
		}
	}
}

// roleOf is the role the monitor API reports: active, standby or
// standalone ("" when it does not answer).
func roleOf(p testPorts) string {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/api/v1/monitor/ready?level=connected", p.monitor))
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var body struct{ Role string }
	if json.NewDecoder(resp.Body).Decode(&body) != nil {
		return ""
	}
	return body.Role
}

// startStandby runs a gobridge process that is to stay standby and waits
// until its monitor API reports that role: a standby never reaches the
// full readiness startBinary waits for.
func startStandby(t *testing.T, cfgPath, dataDir string, p testPorts) *proc {
	t.Helper()
	logs := &lockedBuffer{}
	cmd := exec.Command(binPath, "run", "-c", cfgPath, "-data-dir", dataDir)
	cmd.Stdout, cmd.Stderr = logs, logs
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
	eventually(t, "standby bridge up", func() bool { return roleOf(p) == "standby" }, logs.String)
	return pr
}
