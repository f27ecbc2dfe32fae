package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/itest"
)

// crashInFlight is the route's max_in_flight in the crash test: the most
// messages a killed bridge can have published without deleting them.
const crashInFlight = 20

// TestBinarySIGKILLMidStreamSQSToAMQPLosesNothing forwards a preloaded SQS
// queue (goaws) to a RabbitMQ queue on a direct_hold route, kills the
// bridge with SIGKILL once part of it arrived, restarts it on the same
// configuration and data directory, and checks that every message reached
// RabbitMQ, with no more duplicates than the route's max_in_flight.
//
// The queue's VisibilityTimeout is 2s (goaws honours the queue attribute,
// not a receive's own), so what the killed bridge held comes back soon.
// What this cannot show on goaws: the receive count of the redelivered
// messages (goaws keeps ApproximateReceiveCount at 1).
func TestBinarySIGKILLMidStreamSQSToAMQPLosesNothing(t *testing.T) {
	brokerUp(t, "127.0.0.1:5672")
	ep := sqsEmulator(t)
	const total = 1000
	suffix := strconv.FormatInt(time.Now().UnixNano(), 36)
	queueURL := sqsCreateQueue(t, ep, "crash-"+suffix, "2")
	for i := 0; i < total; i += 10 {
		bodies := make([]string, 0, 10)
		for j := i; j < i+10 && j < total; j++ {
			bodies = append(bodies, fmt.Sprintf("m-%04d", j))
		}
		sqsSendBatch(t, ep, queueURL, bodies)
	}

	exchange, rqueue := "crash-"+suffix, "crash.from-sqs-"+suffix
	got := consumeAMQP(t, exchange, rqueue)

	p := newPorts(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "crash.yaml")
	cfg := sqsCrashConfig(p, ep, queueURL, exchange)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}

	first, _ := startBinary(t, cfgPath, dir, p)
	eventually(t, "a part of the queue in RabbitMQ", func() bool { return got.distinct() >= total/10 }, nil)
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-first.done:
		first.done <- err // the helper's cleanup waits for it too
	case <-time.After(10 * time.Second):
		t.Fatal("killed gobridge did not exit")
	}
	atKill := got.distinct()
	if atKill >= total {
		t.Fatalf("all %d messages arrived before the kill: the test did not stop the bridge mid-stream", total)
	}
	_, held := sqsQueueCounts(t, ep, queueURL)
	t.Logf("%d of %d distinct messages had arrived when gobridge was killed; %d were in flight", atKill, total, held)

	second, _ := startBinary(t, cfgPath, dir, p)
	eventually(t, "every message in RabbitMQ", func() bool { return got.distinct() == total },
		func() string { return fmt.Sprintf("%d of %d distinct arrived", got.distinct(), total) })
	// Everything arrived; the queue empties once the last deletes went
	// through. Then the bridge stops, and nothing more can come.
	eventually(t, "the SQS queue empty", func() bool {
		v, f := sqsQueueCounts(t, ep, queueURL)
		return v == 0 && f == 0
	}, nil)
	second.stop(t)

	counts := got.snapshot()
	dups := 0
	for i := range total {
		n := counts[fmt.Sprintf("m-%04d", i)]
		if n == 0 {
			t.Errorf("m-%04d never arrived", i)
		}
		dups += max(n-1, 0)
	}
	if len(counts) != total {
		t.Errorf("RabbitMQ got %d distinct bodies, want %d", len(counts), total)
	}
	t.Logf("duplicates after the kill: %d (max_in_flight %d)", dups, crashInFlight)
	if dups > crashInFlight {
		t.Errorf("%d duplicates, want at most max_in_flight = %d", dups, crashInFlight)
	}
}

// sqsCrashConfig is an SQS -> AMQP 0-9-1 direct_hold route.
func sqsCrashConfig(p testPorts, endpoint, queueURL, exchange string) string {
	return fmt.Sprintf(`
bridge: {id: sqs-crash, shutdown_timeout: 10s}
sessions:
  - id: rabbit
    type: amqp091
    settings:
      url: amqp://guest:guest@127.0.0.1:5672/
      topology:
        exchanges:
          - {name: %s, type: topic}
receivers:
  - id: sqs-in
    type: sqs
    settings:
      queue: %s
      wait_time: 1s
      client: {region: us-east-1, endpoint: "%s", protocol: query, access_key_id: test, secret_access_key: test}
senders:
  - id: rabbit-out
    type: amqp091
    session_id: rabbit
    settings: {exchange: %s}
bindings:
  - {id: to-rabbit, sender_id: rabbit-out, address: order.from-sqs}
routes:
  - id: crash
    receiver_id: sqs-in
    delivery_mode: direct_hold
    bindings: [to-rabbit]
    policy:
      max_in_flight: %d
      backoff: {initial_interval: 50ms, max_interval: 200ms}
stores:
  dlq: {type: sqlite, settings: {path: crash.db}}
http:
  admin_addr: "127.0.0.1:%d"
  monitor_addr: "127.0.0.1:%d"
  admin_api_key: %s
`, exchange, queueURL, endpoint, exchange, crashInFlight, p.admin, p.monitor, testKey)
}

// bodyCounts counts the bodies a consumer received.
type bodyCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (b *bodyCounts) distinct() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.n)
}

func (b *bodyCounts) snapshot() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]int, len(b.n))
	for k, v := range b.n {
		out[k] = v
	}
	return out
}

// consumeAMQP declares exchange and a queue bound to it for
// order.from-sqs, consumes it with auto-ack, and deletes both when t ends.
func consumeAMQP(t *testing.T, exchange, queue string) *bodyCounts {
	t.Helper()
	conn, err := amqp.Dial("amqp://guest:guest@127.0.0.1:5672/")
	if err != nil {
		t.Fatal(err)
	}
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.ExchangeDeclare(exchange, "topic", true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ch.QueueDeclare(queue, false, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.QueueBind(queue, "order.from-sqs", exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	msgs, err := ch.Consume(queue, "", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := &bodyCounts{n: map[string]int{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m := range msgs {
			b.mu.Lock()
			b.n[string(m.Body)]++
			b.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_, _ = ch.QueueDelete(queue, false, false, false)
		_ = ch.ExchangeDelete(exchange, false, false)
		_ = conn.Close()
		<-done
	})
	return b
}

// sqsEmulator returns the goaws endpoint (GOBRIDGE_SQS_ENDPOINT or
// 127.0.0.1:4100) and skips t when nothing listens there.
func sqsEmulator(t *testing.T) string {
	t.Helper()
	ep := os.Getenv("GOBRIDGE_SQS_ENDPOINT")
	if ep == "" {
		ep = "http://127.0.0.1:4100"
	}
	u, err := url.Parse(ep)
	if err != nil {
		t.Fatalf("GOBRIDGE_SQS_ENDPOINT: %v", err)
	}
	c, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
	if err != nil {
		itest.Unavailable(t, "no SQS emulator at %s (run scripts/ensure-sqs.sh): %v", ep, err)
	}
	_ = c.Close()
	return ep
}

// sqsQuery makes one Query-protocol call (what goaws speaks) and returns
// the XML answer; the test needs no SDK for the few calls it makes.
func sqsQuery(t *testing.T, ep string, form url.Values) string {
	t.Helper()
	form.Set("Version", "2012-11-05")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ep, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("SQS %s: %v", form.Get("Action"), err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("SQS %s: %d %s", form.Get("Action"), resp.StatusCode, raw)
	}
	return string(raw)
}

var queueURLRe = regexp.MustCompile(`<QueueUrl>([^<]+)</QueueUrl>`)

// sqsCreateQueue creates a queue with the given VisibilityTimeout and
// deletes it when t ends.
func sqsCreateQueue(t *testing.T, ep, name, visibility string) string {
	t.Helper()
	out := sqsQuery(t, ep, url.Values{"Action": {"CreateQueue"}, "QueueName": {name},
		"Attribute.1.Name": {"VisibilityTimeout"}, "Attribute.1.Value": {visibility}})
	m := queueURLRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("CreateQueue: no QueueUrl in %s", out)
	}
	t.Cleanup(func() { sqsQuery(t, ep, url.Values{"Action": {"DeleteQueue"}, "QueueUrl": {m[1]}}) })
	return m[1]
}

// sqsSendBatch sends up to 10 bodies in one SendMessageBatch call.
func sqsSendBatch(t *testing.T, ep, queueURL string, bodies []string) {
	t.Helper()
	form := url.Values{"Action": {"SendMessageBatch"}, "QueueUrl": {queueURL}}
	for i, b := range bodies {
		k := fmt.Sprintf("SendMessageBatchRequestEntry.%d.", i+1)
		form.Set(k+"Id", strconv.Itoa(i))
		form.Set(k+"MessageBody", b)
	}
	if out := sqsQuery(t, ep, form); strings.Contains(out, "<BatchResultErrorEntry>") {
		t.Fatalf("SendMessageBatch: %s", out)
	}
}

var attrRe = regexp.MustCompile(`<Name>(ApproximateNumberOfMessages(?:NotVisible)?)</Name>\s*<Value>(\d+)</Value>`)

// sqsQueueCounts returns how many messages the queue holds visible and in
// flight (received and neither deleted nor visible again).
func sqsQueueCounts(t *testing.T, ep, queueURL string) (visible, inFlight int) {
	t.Helper()
	out := sqsQuery(t, ep, url.Values{"Action": {"GetQueueAttributes"}, "QueueUrl": {queueURL}, "AttributeName.1": {"All"}})
	seen := 0
	for _, m := range attrRe.FindAllStringSubmatch(out, -1) {
		seen++
		n, _ := strconv.Atoi(m[2])
		if m[1] == "ApproximateNumberOfMessages" {
			visible = n
		} else {
			inFlight = n
		}
	}
	if seen != 2 {
		t.Fatalf("GetQueueAttributes: no message counts in %s", out)
	}
	return visible, inFlight
}
