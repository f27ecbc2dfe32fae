package amqp091

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// failingSender refuses every message with a transient error and records
// when each attempt came.
type failingSender struct {
	mu    sync.Mutex
	times []time.Time
}

func (f *failingSender) Send(context.Context, ports.OutboundMessage) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.times = append(f.times, time.Now())
	return fault.ErrUnavailable.WithMessage("target down on purpose")
}

func (f *failingSender) attempts() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.times...)
}

// countingReceiver records the redelivery count of every delivery it
// hands to the route.
type countingReceiver struct {
	*Receiver
	mu     sync.Mutex
	counts []int
}

func (c *countingReceiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	return c.Receiver.Run(ctx, func(ctx context.Context, d ports.Delivery) error {
		n, _ := d.(ports.RedeliveryCounter).RedeliveryCount()
		c.mu.Lock()
		c.counts = append(c.counts, n)
		c.mu.Unlock()
		return emit(ctx, d)
	})
}

// TestDelayedRetryThroughRuntime runs a route whose target always fails
// transiently: the message must come back through the wait queues after
// roughly each backoff delay, with a growing redelivery count, and land in
// the DLQ as max_retries once the replay budget is spent.
func TestDelayedRetryThroughRuntime(t *testing.T) {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	q := uniqueName(t, "retry")
	delays := []time.Duration{300 * time.Millisecond, 600 * time.Millisecond, 1200 * time.Millisecond}
	cfg := ReceiverConfig{Queue: q, Retry: RetryConfig{Delays: delays}}.WithDefaults()
	queues := []string{q}
	for _, b := range retryBuckets(cfg.Retry) {
		queues = append(queues, cfg.Retry.QueuePrefix+b.label)
	}
	a.deleteOnCleanup(queues, []string{cfg.Retry.Exchange})
	sess := newTestSession(t, url, Topology{Queues: []QueueSpec{{Name: q}}})
	recv, err := NewReceiver(sess, cfg, WithName("retry-in"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = recv.Close(context.Background()) })
	cr := &countingReceiver{Receiver: recv}
	target := &failingSender{}
	dlq := memtransport.NewDLQ()
	noJitter := 0.0
	rt, err := runtime.New([]runtime.Route{{
		ID: "retry", ReceiverID: "retry-in", Receiver: cr,
		Bindings: []runtime.Binding{{ID: "down", Sender: target, Address: "x"}},
		Policy: runtime.Policy{
			Backoff:           runtime.Backoff{Initial: 300 * time.Millisecond, Max: 2 * time.Second, Multiplier: 2, Jitter: &noJitter},
			MaxReplayAttempts: 3,
			ReplayBudget:      time.Millisecond,
		},
	}}, runtime.Options{DLQ: dlq})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- rt.Run(ctx) }()

	env := messaging.NewEnvelope("orders.created", []byte("retry me"))
	if err := a.publish(ctx, "", q, env); err != nil {
		t.Fatal(err)
	}
	var entries []ports.DLQEntry
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for len(entries) == 0 {
		page, err := dlq.List(ctx, ports.DLQFilter{}, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		if entries = page.Entries; len(entries) > 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no DLQ entry; attempts at %v", target.attempts())
		case <-poll.C:
		}
	}
	cancel()
	<-done

	cr.mu.Lock()
	counts := append([]int(nil), cr.counts...)
	cr.mu.Unlock()
	if diff := cmp.Diff([]int{0, 1, 2}, counts); diff != "" {
		t.Errorf("redelivery counts (-want +got):\n%s", diff)
	}
	times := target.attempts()
	if len(times) != 3 {
		t.Fatalf("%d attempts, want 3", len(times))
	}
	for i, want := range []time.Duration{300 * time.Millisecond, 600 * time.Millisecond} {
		gap := times[i+1].Sub(times[i])
		t.Logf("retry %d came after %v (backoff %v)", i+1, gap.Round(time.Millisecond), want)
		if gap < want*9/10 || gap > want+2*time.Second {
			t.Errorf("retry %d came after %v, want about %v", i+1, gap, want)
		}
	}
	e := entries[0]
	got := struct {
		ID, Subject, Code string
		Category          ports.DLQCategory
		Attempts          int
	}{e.Envelope.ID, e.Envelope.Subject, e.ErrorCode, e.Category, e.Attempts}
	want := got
	want.ID, want.Subject, want.Code, want.Category, want.Attempts = env.ID, env.Subject, string(fault.CodePoisonMessage), ports.DLQMaxRetries, 3
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DLQ entry (-want +got):\n%s", diff)
	}
}
