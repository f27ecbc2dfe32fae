package amqp091

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// secondNode drives scripts/rabbitmq-second-node.sh: a RabbitMQ node of
// its own (name, ports, data) that the fault test may restart, so the
// shared node on 5672 is never touched.
type secondNode struct {
	t      *testing.T
	script string
	port   string
}

func startSecondNode(t *testing.T) *secondNode {
	script, err := filepath.Abs("../../scripts/rabbitmq-second-node.sh")
	if _, serr := os.Stat(script); err != nil || serr != nil {
		itest.Unavailable(t, "scripts/rabbitmq-second-node.sh not found (module used outside the monorepo)")
	}
	port := os.Getenv("GOBRIDGE_RMQ2_PORT")
	if port == "" {
		port = "5673"
	}
	n := &secondNode{t: t, script: script, port: port}
	if out, err := n.run("start"); err != nil {
		itest.Unavailable(t, "second RabbitMQ node did not start: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := n.run("stop"); err != nil {
			t.Logf("stopping the second node: %v\n%s", err, out)
		}
	})
	return n
}

func (n *secondNode) run(cmd string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", n.script, cmd)
	c.Env = append(os.Environ(), "GOBRIDGE_RMQ2_PORT="+n.port)
	return c.CombinedOutput()
}

func (n *secondNode) url() string { return "amqp://guest:guest@127.0.0.1:" + n.port + "/" }

// depth returns the ready messages of queue, over a fresh connection (the
// node may have restarted since the last call).
func depth(url, queue string) (int, error) {
	conn, err := amqp.DialConfig(url, amqp.Config{Dial: amqp.DefaultDial(2 * time.Second)})
	if err != nil {
		return 0, err
	}
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	if err != nil {
		return 0, err
	}
	q, err := ch.QueueDeclarePassive(queue, true, false, false, false, nil)
	return q.Messages, err
}

// preload publishes n persistent messages numbered 0..n-1 with pipelined
// confirms.
func preload(t *testing.T, url, queue string, n int) {
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Confirm(false); err != nil {
		t.Fatal(err)
	}
	var window []*amqp.DeferredConfirmation
	flush := func() {
		for _, dc := range window {
			if !dc.Wait() {
				t.Fatal("preload publish nacked")
			}
		}
		window = window[:0]
	}
	for i := range n {
		dc, err := ch.PublishWithDeferredConfirm("", queue, true, false, amqp.Publishing{
			DeliveryMode: amqp.Persistent, MessageId: fmt.Sprintf("m-%06d", i),
			Headers: amqp.Table{"gobridge.subject": "fault.test"}, Body: fmt.Appendf(nil, "seq-%06d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if window = append(window, dc); len(window) == 500 {
			flush()
		}
	}
	flush()
}

// waitFor polls cond every 50ms until it holds or ctx ends.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

// TestBrokerRestartMidStream bridges a queue to an exchange on the second
// node in direct_hold, restarts the node while messages flow, and checks
// that every message reaches the target queue; duplicates are allowed
// (at-least-once) and reported.
func TestBrokerRestartMidStream(t *testing.T) {
	itest.Short(t, "restarts a RabbitMQ node")
	node := startSecondNode(t)
	cases := []struct {
		name  string
		steps []string
	}{
		{"graceful", []string{"restart"}},
		{"crash", []string{"kill", "start"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { restartMidStream(t, node, c.steps) })
	}
}

func restartMidStream(t *testing.T, node *secondNode, steps []string) {
	url := node.url()
	const n = 4000
	src, dst, ex := uniqueName(t, "src"), uniqueName(t, "dst"), uniqueName(t, "ex")
	topo := Topology{
		Exchanges: []ExchangeSpec{{Name: ex, Type: "direct"}},
		Queues:    []QueueSpec{{Name: src}, {Name: dst}},
		Bindings:  []BindingSpec{{Exchange: ex, Queue: dst, RoutingKey: "out"}},
	}
	rcfg := ReceiverConfig{Queue: src, Linger: time.Second,
		Retry: RetryConfig{Delays: []time.Duration{100 * time.Millisecond, time.Second}}}.WithDefaults()
	queues := []string{src, dst}
	for _, b := range retryBuckets(rcfg.Retry) {
		queues = append(queues, rcfg.Retry.QueuePrefix+b.label)
	}
	deleteLater(t, url, queues, []string{ex, rcfg.Retry.Exchange})
	in := newTestSession(t, url, topo, WithName("fault-in"))
	out := newTestSession(t, url, Topology{}, WithName("fault-out"))
	preload(t, url, src, n)

	recv, err := NewReceiver(in, rcfg, WithMaxInFlight(100))
	if err != nil {
		t.Fatal(err)
	}
	send, err := NewSender(out, SenderConfig{Exchange: ex})
	if err != nil {
		t.Fatal(err)
	}
	meter := telemetry.NewMemory()
	rt, err := runtime.New([]runtime.Route{{
		ID: "fault", ReceiverID: "src", Receiver: recv, DeliveryMode: runtime.DirectHold,
		Bindings: []runtime.Binding{{ID: "dst", Sender: send, Address: "out"}},
		Policy: runtime.Policy{MaxInFlight: 100, SendTimeout: 5 * time.Second,
			Backoff: runtime.Backoff{Initial: 50 * time.Millisecond, Max: time.Second}},
	}}, runtime.Options{DLQ: memtransport.NewDLQ(), StopTimeout: 10 * time.Second, Meter: meter})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(runCtx) }()

	waitFor(ctx, t, "a fifth of the messages at the target", func() bool {
		d, err := depth(url, dst)
		return err == nil && d >= n/5
	})
	atSrc, _ := depth(url, src)
	atDst, _ := depth(url, dst)
	t.Logf("restarting the node with %d messages ready in the source and %d at the target", atSrc, atDst)
	began := time.Now()
	for _, step := range steps {
		if out, err := node.run(step); err != nil {
			t.Fatalf("%s: %v\n%s", step, err, out)
		}
	}
	t.Logf("node restarted in %v", time.Since(began).Round(time.Millisecond))
	waitFor(ctx, t, "the source drained and the target full", func() bool {
		s, err1 := depth(url, src)
		d, err2 := depth(url, dst)
		return err1 == nil && err2 == nil && s == 0 && d >= n
	})
	stop()
	if err := <-done; err != nil {
		t.Fatalf("runtime: %v", err)
	}
	_ = recv.Close(ctx)

	left, err := depth(url, src)
	if err != nil {
		t.Fatal(err)
	}
	total, err := depth(url, dst)
	if err != nil {
		t.Fatal(err)
	}
	seen := drain(ctx, t, url, dst, total)
	dups := 0
	for _, c := range seen {
		dups += c - 1
	}
	t.Logf("broker restart mid-stream: %d sent, %d distinct arrived, %d duplicates, %d left in the source",
		n, len(seen), dups, left)
	t.Logf("route: %v retried, %v left unsettled, %v settle errors, %v dead-lettered",
		meter.Value("gobridge_route_messages_retried_total", "fault"),
		meter.Value("gobridge_route_messages_unsettled_total", "fault"),
		meter.Value("gobridge_route_settle_errors_total", "fault"),
		meter.Value("gobridge_route_messages_dead_lettered_total", "fault", "max_retries"))
	if len(seen) != n {
		t.Errorf("%d of %d messages arrived (%d still in the source)", len(seen), n, left)
	}
}

// deleteLater removes queues and exchanges when the test ends, over a
// connection opened then (the node may have restarted in between).
func deleteLater(t *testing.T, url string, queues, exchanges []string) {
	t.Cleanup(func() {
		conn, err := amqp.Dial(url)
		if err != nil {
			t.Logf("cleanup: %v", err)
			return
		}
		defer func() { _ = conn.Close() }()
		for _, q := range queues {
			if ch, err := conn.Channel(); err == nil {
				_, _ = ch.QueueDelete(q, false, false, false)
				_ = ch.Close()
			}
		}
		for _, e := range exchanges {
			if ch, err := conn.Channel(); err == nil {
				_ = ch.ExchangeDelete(e, false, false)
				_ = ch.Close()
			}
		}
	})
}

// drain consumes count messages from queue and counts each payload.
func drain(ctx context.Context, t *testing.T, url, queue string, count int) map[string]int {
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ch.Consume(queue, "", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for range count {
		select {
		case d := <-ds:
			seen[string(d.Body)]++
		case <-ctx.Done():
			t.Fatalf("draining %s: %v after %d messages", queue, ctx.Err(), len(seen))
		}
	}
	return seen
}
