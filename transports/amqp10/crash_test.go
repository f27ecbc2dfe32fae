package amqp10

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// TestNoLossWhenThePeerRestarts runs an AMQP 1.0 -> AMQP 1.0 route in
// direct_hold between two durable queues of a RabbitMQ node of the
// test's own, stops the node while messages flow (gracefully, or with
// SIGKILL as a crash would), and starts it again on the same data. The
// session reconnects, the receiving and sending links are attached
// again, and every message ends up on the target: the bridge accepts a
// delivery on the source only after the target accepted the copy, so
// nothing is lost.
//
// Duplicates: after a graceful stop, only deliveries in flight at the
// stop can come again. After SIGKILL, RabbitMQ also forgets accepts it
// had not yet written to disk (a classic queue writes them lazily), so
// messages settled before the crash are delivered again as well: at
// least once, not exactly once.
func TestNoLossWhenThePeerRestarts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		crash bool
	}{{"graceful", false}, {"sigkill", true}} {
		t.Run(tc.name, func(t *testing.T) { testPeerRestart(t, tc.crash) })
	}
}

func testPeerRestart(t *testing.T, crash bool) {
	const n, window = 3000, 50
	node := startRMQNode(t, nil)
	p := rabbitPeerAt(t, "crash", node.url091(), SessionConfig{URL: node.url(), Username: "guest", Password: "guest"})
	src, dst := p.queue(t), p.queue(t)
	q091 := func(addr string) string { return strings.TrimPrefix(addr, "/amq/queue/") }

	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	preload(ctx, t, p, src, n)
	if crash {
		// The queues must survive the crash; what is tested is the bridge.
		node.persistMetadata()
	}

	m := telemetry.NewMemory()
	sess := newTestSessionWith(t, p, WithMeter(m), WithName("crash"))
	recv, err := NewReceiver(sess, ReceiverConfig{Address: src, Retry: RetryReleased, Linger: time.Second},
		WithMaxInFlight(window), WithMeter(m), WithName("src"))
	if err != nil {
		t.Fatal(err)
	}
	send, err := NewSender(sess, SenderConfig{}, WithMeter(m), WithName("dst"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := runtime.New([]runtime.Route{{
		ID: "crash", ReceiverID: "src", Receiver: recv, DeliveryMode: runtime.DirectHold,
		Bindings: []runtime.Binding{{ID: "dst", Sender: send, Address: dst}},
		Policy: runtime.Policy{MaxInFlight: window, SendTimeout: 5 * time.Second,
			Backoff: runtime.Backoff{Initial: 50 * time.Millisecond, Max: time.Second}},
	}}, runtime.Options{DLQ: memtransport.NewDLQ(), StopTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(runCtx) }()
	stopped := false
	defer func() {
		if !stopped {
			stop()
			<-done
		}
	}()

	waitDepth(ctx, t, p.url091, q091(dst), func(d int) bool { return d >= n/4 })
	if crash {
		node.kill()
	} else if !node.stop() {
		t.Fatal("the node did not stop gracefully within 90s; this run cannot show a graceful restart")
	}
	sent := m.Value("gobridge_amqp10_sent_total", "dst", "accepted")
	t.Logf("node down after %v accepted sends", sent)
	node.start()
	waitDepth(ctx, t, p.url091, q091(src), func(d int) bool { return d == 0 })
	waitDepth(ctx, t, p.url091, q091(dst), func(d int) bool { return d >= n })
	stop()
	stopped = true
	if err := <-done; err != nil {
		t.Fatalf("runtime: %v", err)
	}

	seen := drainMarkers(t, p.url091, q091(dst))
	total := 0
	for _, c := range seen {
		total += c
	}
	t.Logf("peer restart mid-stream: %d sent, %d distinct arrived, %d duplicates (window %d)", n, len(seen), total-len(seen), window)
	if len(seen) != n {
		t.Errorf("%d of %d messages arrived", len(seen), n)
	}
	// A delivery in flight at the stop can come twice more: its send's
	// outcome was lost (sent again), and its accept was lost (redelivered).
	// After a crash, so can every delivery settled before it.
	limit := 2 * window
	if crash {
		limit += int(sent)
	}
	if dups := total - len(seen); dups > limit {
		t.Errorf("%d duplicates, more than %d", dups, limit)
	}
	if got := m.Value("gobridge_amqp10_receiver_attaches_total", "src"); got < 2 {
		t.Errorf("the receiving link was attached %v times; want it attached again after the crash", got)
	}
	if got := m.Value("gobridge_amqp10_reconnects_total", "crash"); got < 1 {
		t.Errorf("%v reconnects; want at least one", got)
	}
	if after := m.Value("gobridge_amqp10_sent_total", "dst", "accepted"); after <= sent {
		t.Errorf("no send was accepted after the crash (%v before, %v in all)", sent, after)
	}
}

// preload puts n persistent messages m00000... on addr, all in flight at
// once, and waits for every outcome.
func preload(ctx context.Context, t testing.TB, p peer, addr string, n int) {
	t.Helper()
	raw := newRawClient(t, p)
	s, err := raw.sess.NewSender(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := make([]amqp.SendReceipt, 0, n)
	for i := range n {
		r, err := s.SendWithReceipt(ctx, &amqp.Message{Data: [][]byte{fmt.Appendf(nil, "m%05d", i)},
			Header: &amqp.MessageHeader{Durable: true}}, nil)
		if err != nil {
			t.Fatalf("preload: %v", err)
		}
		rs = append(rs, r)
	}
	for _, r := range rs {
		if _, err := r.Wait(ctx); err != nil {
			t.Fatalf("preload: %v", err)
		}
	}
}
