package amqp10

import (
	"context"
	"testing"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// TestSbemuReleasedRedelivers: with retry: released the message comes back
// on the same link. AMQP 1.0 does not count a release as a failed
// delivery, and the emulator redelivers with delivery-count 0 and
// first-acquirer still set (allowed on the same link), so the header
// cannot tell this redelivery from a first delivery: the receiver reports
// no count, and the runtime counts the attempts itself.
func TestSbemuReleasedRedelivers(t *testing.T) {
	p := sbemuPeer(t, sbemuQueue{name: "orders", lock: 10 * time.Second})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := newRawClient(t, p).publish(ctx, "orders", messaging.NewEnvelope("orders.created", []byte("again"))); err != nil {
		t.Fatal(err)
	}
	m := telemetry.NewMemory()
	r, err := NewReceiver(newTestSession(t, p), ReceiverConfig{Address: "orders", Retry: RetryReleased}, WithName("r"), WithMeter(m))
	if err != nil {
		t.Fatal(err)
	}
	deliveries := collect(ctx, t, r)
	next := deliveries.next
	first := next()
	if err := first.Retry(ctx, 0, nil); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	again := next()
	if again.Envelope().ID != first.Envelope().ID || string(again.Envelope().PayloadView()) != "again" {
		t.Errorf("redelivered ID %q payload %q, want %q %q", again.Envelope().ID, again.Envelope().PayloadView(), first.Envelope().ID, "again")
	}
	if got := again.Envelope().Headers[HeaderDeliveryCount]; got != int64(0) {
		t.Errorf("redelivery %s = %#v, want 0: a release is not a failed delivery", HeaderDeliveryCount, got)
	}
	for i, d := range []ports.Delivery{first, again} {
		if n, known := countOf(t, d); known {
			t.Errorf("delivery %d: redelivery count %d reported as known; with retry: released the header cannot tell", i+1, n)
		}
	}
	if err := again.Ack(ctx); err != nil {
		t.Fatalf("Ack: %v", err)
	}
	waitStats(ctx, t, p, "orders", func(c sbemuCounts) bool { return c == sbemuCounts{} })
	if got := m.Value("gobridge_amqp10_receiver_attaches_total", "r"); got != 1 {
		t.Errorf("%v attaches, want 1 (redelivered on the same link)", got)
	}
	if got := m.Value("gobridge_amqp10_dispositions_total", "r", dispReleased); got != 1 {
		t.Errorf("%v released dispositions, want 1", got)
	}
}

// TestSbemuReleasedBackoffGrows runs a route whose only destination always
// fails transiently with retry: released. The peer's delivery-count stays
// 0, so the attempt number must come from the runtime's own count: the
// backoff grows (Initial, then twice that) and the DLQ entry written once
// the 3 replay attempts are spent says 3 attempts. Reading the header's
// count 0 with first-acquirer as "first delivery" would keep every retry
// at attempt 1.
func TestSbemuReleasedBackoffGrows(t *testing.T) {
	const (
		initial  = 200 * time.Millisecond
		attempts = 3
	)
	p := sbemuPeer(t, sbemuQueue{name: "orders", lock: 10 * time.Second})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := newRawClient(t, p).publish(ctx, "orders", messaging.NewEnvelope("orders.created", []byte("poison"))); err != nil {
		t.Fatal(err)
	}
	recv, err := NewReceiver(newTestSession(t, p), ReceiverConfig{Address: "orders", Retry: RetryReleased}, WithMaxInFlight(1))
	if err != nil {
		t.Fatal(err)
	}
	rec := &timingReceiver{Receiver: recv}
	dlq := &recordingDLQ{}
	zero := 0.0
	rt, err := runtime.New([]runtime.Route{{
		ID: "released", ReceiverID: "src", Receiver: rec, DeliveryMode: runtime.DirectHold,
		Bindings: []runtime.Binding{{ID: "dst", Sender: &poisonSender{}}}, // fails "poison" every time
		Policy: runtime.Policy{MaxInFlight: 1, SendTimeout: 5 * time.Second, MaxReplayAttempts: attempts, ReplayBudget: time.Millisecond,
			Backoff: runtime.Backoff{Initial: initial, Max: 10 * time.Second, Multiplier: 2, Jitter: &zero}},
	}}, runtime.Options{DLQ: dlq, StopTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(runCtx) }()
	entries := dlq.wait(ctx, t, 1)
	stop()
	if err := <-done; err != nil {
		t.Fatalf("runtime: %v", err)
	}
	seen := rec.seen()
	if len(seen) != attempts {
		t.Fatalf("%d deliveries, want %d", len(seen), attempts)
	}
	for i := 1; i < len(seen); i++ {
		want := initial << (i - 1)
		gap := seen[i].at.Sub(seen[i-1].at)
		t.Logf("redelivery %d after %v (backoff of attempt %d: %v)", i, gap, i, want)
		if gap < want || gap > want+2*time.Second {
			t.Errorf("redelivery %d came %v after the one before; the backoff of attempt %d is %v", i, gap, i, want)
		}
	}
	if e := entries[0]; e.Attempts != attempts || e.Category != ports.DLQMaxRetries {
		t.Errorf("DLQ entry: %d attempts, category %q; want %d, %q", e.Attempts, e.Category, attempts, ports.DLQMaxRetries)
	}
	waitStats(ctx, t, p, "orders", func(c sbemuCounts) bool { return c == sbemuCounts{} })
}

// TestReleasedModeReportsNoCount: the delivery-count of a peer says how
// many deliveries failed (modified with delivery-failed, expired locks),
// never how many were released, so with retry: released, the mode in which
// the bridge's own retries are releases, no header says how often the
// message was delivered before.
func TestReleasedModeReportsNoCount(t *testing.T) {
	tests := []struct {
		name   string
		retry  RetryMode
		header *amqp.MessageHeader
		want   int
		wantOK bool
	}{
		{"modified, first delivery", RetryModified, &amqp.MessageHeader{FirstAcquirer: true}, 0, true},
		{"modified, counted", RetryModified, &amqp.MessageHeader{DeliveryCount: 2}, 2, true},
		{"off, first delivery", RetryOff, &amqp.MessageHeader{FirstAcquirer: true}, 0, true},
		{"released, first-acquirer", RetryReleased, &amqp.MessageHeader{FirstAcquirer: true}, 0, false},
		{"released, counted", RetryReleased, &amqp.MessageHeader{DeliveryCount: 2}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &delivery{retry: tt.retry, msg: &amqp.Message{Header: tt.header}}
			if n, ok := d.RedeliveryCount(); n != tt.want || ok != tt.wantOK {
				t.Errorf("RedeliveryCount = %d, %v; want %d, %v", n, ok, tt.want, tt.wantOK)
			}
		})
	}
}
