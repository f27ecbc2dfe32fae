package amqp10

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// TestConnectionLossMidStream runs an AMQP 1.0 -> AMQP 1.0 route in
// direct_hold through a TCP proxy to RabbitMQ and cuts every connection
// while messages flow: nothing is lost, and the duplicates stay within
// the route's in-flight window.
func TestConnectionLossMidStream(t *testing.T) {
	itest.Short(t, "moves thousands of messages through RabbitMQ")
	const n, window = 2000, 50
	p := rabbitPeer(t)
	src, dst := p.queue(t), p.queue(t)
	proxy := newProxy(t, strings.TrimPrefix(p.cfg.URL, "amqp://"))
	viaProxy := p
	viaProxy.cfg.URL = "amqp://" + proxy.addr
	viaProxy.name = "proxied"

	raw := newRawClient(t, p)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	for i := range n {
		if err := raw.publish(ctx, src, messaging.NewEnvelope("fault", fmt.Appendf(nil, "m%05d", i))); err != nil {
			t.Fatalf("preload: %v", err)
		}
	}
	sess := newTestSession(t, viaProxy)
	recv, err := NewReceiver(sess, ReceiverConfig{Address: src, Retry: RetryReleased, Linger: time.Second}, WithMaxInFlight(window))
	if err != nil {
		t.Fatal(err)
	}
	send, err := NewSender(sess, SenderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := runtime.New([]runtime.Route{{
		ID: "fault", ReceiverID: "src", Receiver: recv, DeliveryMode: runtime.DirectHold,
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

	q091 := func(addr string) string { return strings.TrimPrefix(addr, "/amq/queue/") }
	waitDepth(ctx, t, p.url091, q091(dst), func(d int) bool { return d >= n/4 })
	proxy.cut()
	proxy.restore(t)
	waitDepth(ctx, t, p.url091, q091(dst), func(d int) bool { return d >= n })
	waitDepth(ctx, t, p.url091, q091(src), func(d int) bool { return d == 0 })
	stop()
	if err := <-done; err != nil {
		t.Fatalf("runtime: %v", err)
	}

	seen := drainMarkers(t, p.url091, q091(dst))
	total := 0
	for _, c := range seen {
		total += c
	}
	dups := total - len(seen)
	t.Logf("connection loss mid-stream: %d sent, %d distinct arrived, %d duplicates (window %d)", n, len(seen), dups, window)
	if len(seen) != n {
		t.Errorf("%d of %d messages arrived", len(seen), n)
	}
	if dups > window {
		t.Errorf("%d duplicates, more than the in-flight window %d", dups, window)
	}
}

// drainMarkers empties queue over AMQP 0-9-1 and counts the m00000
// markers of the bodies (RabbitMQ 3.x keeps an AMQP 1.0 message's
// encoded sections as the body).
func drainMarkers(t *testing.T, url091, queue string) map[string]int {
	t.Helper()
	conn, err := amqp091.Dial(url091)
	if err != nil {
		t.Fatalf("drain: %v", err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatalf("drain: %v", err)
	}
	marker := regexp.MustCompile(`m\d{5}`)
	seen := map[string]int{}
	for {
		m, ok, err := ch.Get(queue, true)
		if err != nil {
			t.Fatalf("drain %s: %v", queue, err)
		}
		if !ok {
			return seen
		}
		seen[marker.FindString(string(m.Body))]++
	}
}

// queueDepth reads a queue's ready messages over AMQP 0-9-1.
func queueDepth(t testing.TB, url091, queue string) int {
	t.Helper()
	conn, err := amqp091.Dial(url091)
	if err != nil {
		t.Fatalf("depth: %v", err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatalf("depth: %v", err)
	}
	q, err := ch.QueueDeclarePassive(queue, true, false, false, false, nil)
	if err != nil {
		t.Fatalf("depth of %s: %v", queue, err)
	}
	return q.Messages
}

// waitDepth polls queue's depth until cond holds or ctx ends.
func waitDepth(ctx context.Context, t testing.TB, url091, queue string, cond func(int) bool) {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		d := queueDepth(t, url091, queue)
		if cond(d) {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("queue %s stuck at depth %d", queue, d)
		}
	}
}
