package amqp10

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// TestMetricsCountSendsReceivesAndDispositions drives one session,
// sender and receiver on RabbitMQ through a memory meter and reads the
// counters back: sends by outcome, deliveries received, dispositions by
// outcome, link attaches and the session's up gauge.
func TestMetricsCountSendsReceivesAndDispositions(t *testing.T) {
	p := rabbitPeer(t)
	q := p.queue(t)
	m := telemetry.NewMemory()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s, err := NewSession(p.cfg, WithName("s1"), WithMeter(m))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		_ = s.Close(cctx)
	})
	snd, err := NewSender(s, SenderConfig{Address: q}, WithName("x1"), WithMeter(m))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = snd.Close(context.Background()) })
	for range 3 {
		if err := snd.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("m", []byte("x"))}); err != nil {
			t.Fatalf("Send: %v", err)
		}
	}
	// A missing exchange is refused at attach: no outcome, counted failed.
	_ = snd.Send(ctx, ports.OutboundMessage{Address: "/exchange/gobridge-missing-" + uniqueName(t) + "/k",
		Envelope: messaging.NewEnvelope("m", []byte("x"))})

	r, err := NewReceiver(s, ReceiverConfig{Address: q, Retry: RetryReleased}, WithName("r1"), WithMeter(m), WithMaxInFlight(10))
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan ports.Delivery, 10)
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- r.Run(runCtx, func(_ context.Context, d ports.Delivery) error { got <- d; return nil }) }()
	defer func() { stop(); <-ran }()
	next := func() ports.Delivery {
		t.Helper()
		select {
		case d := <-got:
			return d
		case <-ctx.Done():
			t.Fatal("no delivery arrived")
			return nil
		}
	}
	// Settle two accepted and one released; the released one comes back
	// and is accepted as well.
	for _, settle := range []func(ports.Delivery) error{
		func(d ports.Delivery) error { return d.Ack(ctx) },
		func(d ports.Delivery) error { return d.Ack(ctx) },
		func(d ports.Delivery) error { return d.Retry(ctx, 0, nil) },
		func(d ports.Delivery) error { return d.Ack(ctx) },
	} {
		if err := settle(next()); err != nil {
			t.Fatalf("settle: %v", err)
		}
	}

	type row struct {
		Name   string
		Labels []string
		Value  float64
	}
	want := []row{
		{"gobridge_amqp10_session_up", []string{"s1"}, 1},
		{"gobridge_amqp10_sent_total", []string{"x1", "accepted"}, 3},
		{"gobridge_amqp10_sent_total", []string{"x1", "failed"}, 1},
		{"gobridge_amqp10_sent_total", []string{"x1", "rejected"}, 0},
		{"gobridge_amqp10_received_total", []string{"r1"}, 4},
		{"gobridge_amqp10_receiver_attaches_total", []string{"r1"}, 1},
		{"gobridge_amqp10_dispositions_total", []string{"r1", "accepted"}, 3},
		{"gobridge_amqp10_dispositions_total", []string{"r1", "released"}, 1},
		{"gobridge_amqp10_dispositions_total", []string{"r1", "failed"}, 0},
	}
	var gotRows []row
	for _, w := range want {
		gotRows = append(gotRows, row{w.Name, w.Labels, m.Value(w.Name, w.Labels...)})
	}
	if diff := cmp.Diff(want, gotRows); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}
