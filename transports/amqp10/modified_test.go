package amqp10

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// TestModifiedOnRabbitMQ pins what the default retry mode does on the
// shared RabbitMQ: the message always comes back. RabbitMQ 3.x does not
// know the modified outcome: it decodes the disposition (its error quotes
// it back as {'v1_0.modified',true,...}, that is delivery-failed set) and
// ends the session with amqp:invalid-field; the receiver attaches again
// and the message, still unsettled, is delivered again with
// first-acquirer cleared (count unknown). A peer that takes modified
// redelivers on the same link with delivery-count 1.
func TestModifiedOnRabbitMQ(t *testing.T) {
	p := rabbitPeer(t)
	q := p.queue(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := newRawClient(t, p).publish(ctx, q, messaging.NewEnvelope("m", []byte("again"))); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	m := telemetry.NewMemory()
	r, err := NewReceiver(newTestSession(t, p), ReceiverConfig{Address: q, Retry: RetryModified},
		WithMaxInFlight(5), WithName("r"), WithMeter(m), WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan ports.Delivery, 5)
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() {
		ran <- r.Run(runCtx, func(_ context.Context, d ports.Delivery) error { got <- d; return nil })
	}()
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
	first := next()
	if n, ok := first.(ports.RedeliveryCounter).RedeliveryCount(); n != 0 || !ok {
		t.Fatalf("first delivery: count %d (known %v), want 0 (known)", n, ok)
	}
	if err := first.Retry(ctx, 0, nil); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	again := next()
	if got := string(again.Envelope().PayloadView()); got != "again" {
		t.Fatalf("redelivered %q", got)
	}
	n, known := again.(ports.RedeliveryCounter).RedeliveryCount()
	attaches := m.Value("gobridge_amqp10_receiver_attaches_total", "r")
	switch {
	case attaches >= 2:
		// RabbitMQ 3.x: the link ended over the disposition.
		if !strings.Contains(logs.String(), `v1_0.modified',true`) {
			t.Errorf("the link ended, but not over a modified outcome with delivery-failed; log:\n%s", logs)
		}
		if known {
			t.Errorf("redelivery after a re-attach: count %d known; RabbitMQ 3.x keeps none", n)
		}
		t.Logf("the peer refused modified and ended the link; the message came back on a new link (count unknown)")
	case known && n == 1:
		t.Logf("the peer took modified and redelivered with delivery-count 1")
	default:
		t.Errorf("redelivered on the same link with count %d (known %v), want 1", n, known)
	}
	if err := again.Ack(ctx); err != nil {
		t.Fatalf("Ack: %v", err)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
