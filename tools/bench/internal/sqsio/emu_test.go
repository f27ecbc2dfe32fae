package sqsio

import (
	"context"
	"math/rand/v2"
	"net"
	"os"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/tools/bench"
)

// emulator is the goaws emulator the integration tests use:
// GOBRIDGE_SQS_ENDPOINT, else the one scripts/ensure-sqs.sh starts.
func emulator(t *testing.T) string {
	t.Helper()
	ep := os.Getenv("GOBRIDGE_SQS_ENDPOINT")
	if ep == "" {
		ep = "http://127.0.0.1:4100"
	}
	c, err := net.DialTimeout("tcp", ep[len("http://"):], time.Second)
	if err != nil {
		itest.Unavailable(t, "no SQS emulator at %s (bash scripts/ensure-sqs.sh): %v", ep, err)
	}
	_ = c.Close()
	return ep
}

// TestPublishSinkThroughProxy publishes a run through the counting proxy
// and drains it with the sink: every message arrives once, and the proxy
// saw one SendMessageBatch per 10.
func TestPublishSinkThroughProxy(t *testing.T) {
	ep := emulator(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := StartCallProxy(ep)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := NewClient(ctx, p.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	urls, err := Prepare(ctx, c, Queue{Name: "gobridge-bench-sqsio-test"})
	if err != nil {
		t.Fatal(err)
	}
	before := p.Calls()
	const n = 253
	run := rand.Uint64()
	if err := Publish(ctx, c, urls[0], Load{Run: run, N: n, Size: 100}); err != nil {
		t.Fatal(err)
	}
	if got := Diff(before, p.Calls())["SendMessageBatch"]; got != (n+9)/10 {
		t.Errorf("%d SendMessageBatch calls for %d messages, want %d", got, n, (n+9)/10)
	}
	counter := bench.NewCounter(run, n)
	s := StartSink(c, urls[0], counter, 2)
	select {
	case <-counter.Done():
	case <-ctx.Done():
	}
	if err := s.Stop(); err != nil {
		t.Error(err)
	}
	tl := counter.Tally()
	if tl.Unique != n || tl.Duplicates != 0 || tl.Stray != 0 {
		t.Errorf("sink: unique %d, duplicates %d, stray %d; want %d, 0, 0", tl.Unique, tl.Duplicates, tl.Stray, n)
	}
}
