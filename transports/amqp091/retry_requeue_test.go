package amqp091

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// runRoute runs one direct_hold route from recv to target through
// core/runtime until the test ends.
func runRoute(t *testing.T, recv ports.Receiver, target ports.Sender, p runtime.Policy, o runtime.Options) {
	t.Helper()
	rt, err := runtime.New([]runtime.Route{{
		ID: "r", ReceiverID: "in", Receiver: recv,
		Bindings: []runtime.Binding{{ID: "out", Sender: target, Address: "x"}},
		Policy:   p,
	}}, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("runtime: %v", err)
		}
	})
}

// firstDLQEntry polls dlq until it holds an entry or ctx ends.
func firstDLQEntry(ctx context.Context, t *testing.T, dlq *memtransport.DLQ, what func() string) ports.DLQEntry {
	t.Helper()
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for {
		page, err := dlq.List(ctx, ports.DLQFilter{}, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Entries) > 0 {
			return page.Entries[0]
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no DLQ entry; %s", what())
		case <-poll.C:
		}
	}
}

// TestRequeueRetryWaitsForTheBackoff: in requeue mode a transient failure
// comes back after the route's backoff (300ms, then 600ms), not at once,
// and the message lands in the DLQ once its retries are spent.
func TestRequeueRetryWaitsForTheBackoff(t *testing.T) {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	q := uniqueName(t, "requeue")
	a.deleteOnCleanup([]string{q}, nil)
	sess := newTestSession(t, url, Topology{Queues: []QueueSpec{{Name: q}}})
	recv, err := NewReceiver(sess, ReceiverConfig{Queue: q, Retry: RetryConfig{Mode: RetryRequeue}}, WithName("requeue-in"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = recv.Close(context.Background()) })
	target := &failingSender{}
	dlq := memtransport.NewDLQ()
	noJitter := 0.0
	runRoute(t, recv, target, runtime.Policy{
		Backoff:           runtime.Backoff{Initial: 300 * time.Millisecond, Max: 2 * time.Second, Multiplier: 2, Jitter: &noJitter},
		MaxReplayAttempts: 3, ReplayBudget: time.Millisecond,
	}, runtime.Options{DLQ: dlq})

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	env := messaging.NewEnvelope("orders.created", []byte("requeue me"))
	if err := a.publish(ctx, "", q, env); err != nil {
		t.Fatal(err)
	}
	e := firstDLQEntry(ctx, t, dlq, func() string { return fmt.Sprint("attempts at ", target.attempts()) })
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
	if e.Envelope.ID != env.ID || e.Category != ports.DLQMaxRetries {
		t.Errorf("DLQ entry %s (%s), want %s (%s)", e.Envelope.ID, e.Category, env.ID, ports.DLQMaxRetries)
	}
}

// TestRequeueDeadLettersBeforeTheDeliveryLimit: a quorum queue with
// x-delivery-limit 3 would drop the message on its fourth return. With a
// route that allows more retries than that, the bridge must put the
// message in its own DLQ before the broker drops it, and leave nothing in
// the queue.
func TestRequeueDeadLettersBeforeTheDeliveryLimit(t *testing.T) {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	q := uniqueName(t, "limit")
	a.deleteOnCleanup([]string{q}, nil)
	sess := newTestSession(t, url, Topology{Queues: []QueueSpec{{Name: q, Type: "quorum", DeliveryLimit: 3}}})
	recv, err := NewReceiver(sess, ReceiverConfig{Queue: q, Retry: RetryConfig{Mode: RetryRequeue}}, WithName("limit-in"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = recv.Close(context.Background()) })
	cr := &countingReceiver{Receiver: recv}
	target := &failingSender{}
	dlq := memtransport.NewDLQ()
	noJitter := 0.0
	runRoute(t, cr, target, runtime.Policy{
		Backoff:           runtime.Backoff{Initial: 20 * time.Millisecond, Max: 50 * time.Millisecond, Multiplier: 2, Jitter: &noJitter},
		MaxReplayAttempts: 10, ReplayBudget: time.Millisecond,
	}, runtime.Options{DLQ: dlq})

	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	env := messaging.NewEnvelope("orders.created", []byte("limited"))
	if err := a.publish(ctx, "", q, env); err != nil {
		t.Fatal(err)
	}
	e := firstDLQEntry(ctx, t, dlq, func() string {
		cr.mu.Lock()
		defer cr.mu.Unlock()
		n, _ := depth(url, q)
		return fmt.Sprintf("redelivery counts %v, queue depth %d", cr.counts, n)
	})
	got := struct {
		ID       string
		Category ports.DLQCategory
		Code     string
	}{e.Envelope.ID, e.Category, e.ErrorCode}
	want := got
	want.ID, want.Category, want.Code = env.ID, ports.DLQRetryUnsupported, string(fault.CodeUnavailable)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DLQ entry (-want +got):\n%s", diff)
	}
	cr.mu.Lock()
	counts := append([]int(nil), cr.counts...)
	cr.mu.Unlock()
	if diff := cmp.Diff([]int{0, 1, 2}, counts); diff != "" {
		t.Errorf("redelivery counts (-want +got):\n%s", diff)
	}
	waitFor(ctx, t, "the queue to be empty", func() bool {
		n, err := depth(url, q)
		return err == nil && n == 0
	})
}

// TestDelayedRetryFallbackDeadLettersBeforeTheDeliveryLimit: in delayed
// mode a retry whose copy cannot be published (here: the retry exchange
// was deleted) nacks the delivery, which a quorum queue counts. Before the
// count reaches x-delivery-limit 3, the bridge must take the message into
// its own DLQ instead of nacking it into the broker's limit.
func TestDelayedRetryFallbackDeadLettersBeforeTheDeliveryLimit(t *testing.T) {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	q := uniqueName(t, "dlimit")
	cfg := ReceiverConfig{Queue: q, Retry: RetryConfig{Delays: []time.Duration{50 * time.Millisecond}}}
	waits, ex := retryObjects(cfg)
	a.deleteOnCleanup(append([]string{q}, waits...), []string{ex})
	sess := newTestSession(t, url, Topology{Queues: []QueueSpec{{Name: q, Type: "quorum", DeliveryLimit: 3}}})
	recv, err := NewReceiver(sess, cfg, WithName("dlimit-in"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = recv.Close(context.Background()) })
	cr := &countingReceiver{Receiver: recv}
	dlq := memtransport.NewDLQ()
	noJitter := 0.0
	runRoute(t, cr, &failingSender{}, runtime.Policy{
		Backoff:           runtime.Backoff{Initial: 20 * time.Millisecond, Max: 50 * time.Millisecond, Multiplier: 2, Jitter: &noJitter},
		MaxReplayAttempts: 10, ReplayBudget: time.Millisecond,
	}, runtime.Options{DLQ: dlq})

	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	// The receiver declares its retry exchange, then binds the wait
	// queues to it, then consumes. Deleting the exchange before the
	// binding is done fails the binding; the receiver then starts again
	// and declares the exchange anew, so retries succeed and the message
	// never reaches the delivery limit. Wait for the consumer.
	waitFor(ctx, t, "the receiver to consume, its retry objects declared", func() bool {
		ch, err := a.conn.Channel()
		if err != nil {
			return false
		}
		defer func() { _ = ch.Close() }()
		qi, err := ch.QueueDeclarePassive(q, true, false, false, false, nil)
		return err == nil && qi.Consumers > 0
	})
	if err := a.channel().ExchangeDelete(ex, false, false); err != nil {
		t.Fatal(err)
	}
	env := messaging.NewEnvelope("orders.created", []byte("no wait queue"))
	if err := a.publish(ctx, "", q, env); err != nil {
		t.Fatal(err)
	}
	e := firstDLQEntry(ctx, t, dlq, func() string {
		cr.mu.Lock()
		defer cr.mu.Unlock()
		return fmt.Sprintf("redelivery counts %v", cr.counts)
	})
	if e.Envelope.ID != env.ID || e.Category != ports.DLQRetryUnsupported {
		t.Errorf("DLQ entry %s (%s), want %s (%s)", e.Envelope.ID, e.Category, env.ID, ports.DLQRetryUnsupported)
	}
	cr.mu.Lock()
	counts := append([]int(nil), cr.counts...)
	cr.mu.Unlock()
	if diff := cmp.Diff([]int{0, 1, 2}, counts); diff != "" {
		t.Errorf("redelivery counts (-want +got):\n%s", diff)
	}
}
