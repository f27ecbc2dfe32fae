package memtransport_test

import (
	"context"
	"testing"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// roundTrip starts a Run that acks every delivery and reports each ack on
// the returned channel, so that a caller can publish and wait without
// allocating.
func roundTrip(tb testing.TB, r *memtransport.Receiver) <-chan struct{} {
	ctx, cancel := context.WithCancel(context.Background())
	acked := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.Run(ctx, func(ctx context.Context, d ports.Delivery) error {
			if err := d.Ack(ctx); err != nil {
				return err
			}
			acked <- struct{}{}
			return nil
		})
	}()
	tb.Cleanup(func() { cancel(); <-done })
	return acked
}

func TestRoundTripAllocations(t *testing.T) {
	r := memtransport.NewReceiver(memtransport.Options{NoHistory: true})
	acked := roundTrip(t, r)
	env := messaging.NewEnvelope("s", []byte("payload"))
	ctx := context.Background()
	n := testing.AllocsPerRun(200, func() {
		_ = r.Publish(ctx, env)
		<-acked
	})
	// The delivery (with its envelope copy) and the copied header map.
	if n > 2 {
		t.Errorf("round trip allocates %v times, want at most 2", n)
	}
}

func BenchmarkRoundTrip(b *testing.B) {
	r := memtransport.NewReceiver(memtransport.Options{NoHistory: true})
	acked := roundTrip(b, r)
	env := messaging.NewEnvelope("orders.created", []byte(`{"id":1}`))
	env.SetHeader(messaging.HeaderCorrelationID, "c-1")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Publish(ctx, env); err != nil {
			b.Fatal(err)
		}
		<-acked
	}
}

func BenchmarkSendDiscard(b *testing.B) {
	s := memtransport.NewSender(memtransport.SenderOptions{Discard: true})
	msg := ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", nil), Address: "a"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Send(ctx, msg); err != nil {
			b.Fatal(err)
		}
	}
}
