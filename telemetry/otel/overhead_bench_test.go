package otel_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	bridgeotel "github.com/gobridge-oss/gobridge/telemetry/otel"
)

// ringDelivery is a reusable broker-like delivery, as in the runtime's
// BenchmarkDirectHotPath: the harness allocates nothing per message, so
// allocs/op is the route's and the tracer's.
type ringDelivery struct {
	env  messaging.Envelope
	hdr  map[string]any
	id   string
	done *atomic.Int64
	busy atomic.Bool
}

func (d *ringDelivery) Envelope() *messaging.Envelope { return &d.env }
func (d *ringDelivery) Ack(context.Context) error     { d.done.Add(1); return nil }
func (d *ringDelivery) Retry(context.Context, time.Duration, error) error {
	d.done.Add(1)
	return nil
}
func (d *ringDelivery) Extend(context.Context, time.Time) error { return nil }
func (d *ringDelivery) RedeliveryCount() (int, bool)            { return 0, true }
func (d *ringDelivery) Settled(ports.Settlement)                { d.busy.Store(false) }

// ringReceiver emits n deliveries from a ring, each rebuilt as a
// transport would: an ID, a subject, a payload and two headers.
type ringReceiver struct {
	ring []ringDelivery
	n    int
	all  chan struct{}
	done atomic.Int64
}

func (r *ringReceiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	slot := 0
	for range r.n {
		for r.ring[slot].busy.Load() {
			slot = (slot + 1) % len(r.ring)
		}
		d := &r.ring[slot]
		d.busy.Store(true)
		clear(d.hdr)
		d.hdr["content-type"] = "application/json"
		d.hdr["tenant"] = "acme"
		d.env = messaging.Envelope{ID: d.id, Subject: "orders.created", Headers: d.hdr}
		d.env.SetPayload([]byte(`{"n":1}`))
		if err := emit(ctx, d); err != nil {
			return err
		}
		slot = (slot + 1) % len(r.ring)
	}
	close(r.all)
	<-ctx.Done()
	return nil
}

type discardSender struct{}

func (discardSender) Send(context.Context, ports.OutboundMessage) error { return nil }

// discardExporter drops exported batches, so a sampled run measures the
// bridge and the SDK, not an exporter's I/O.
type discardExporter struct{}

func (discardExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardExporter) Shutdown(context.Context) error                             { return nil }

// BenchmarkTracingOverhead runs the runtime's direct_hold hot path (a
// discarding sender, no processors) without a tracer, with OpenTelemetry
// at sampling ratio 0 (spans are created and context propagated, nothing
// recorded) and at ratio 1 (four spans per message recorded and handed
// to a batch processor whose exporter discards them). With -count N the
// three variants run in interleaved rounds.
func BenchmarkTracingOverhead(b *testing.B) {
	for _, v := range []struct {
		name  string
		ratio float64 // <0: no tracer
	}{{"none", -1}, {"otel_ratio0", 0}, {"otel_ratio1", 1}} {
		b.Run(v.name, func(b *testing.B) {
			var tracer telemetry.Tracer
			if v.ratio >= 0 {
				ratio := v.ratio
				tp := bridgeotel.NewProvider(bridgeotel.Config{SamplingRatio: &ratio}, sdktrace.WithBatcher(discardExporter{}))
				defer func() { _ = tp.Shutdown(context.Background()) }()
				tracer = bridgeotel.New(tp)
			}
			recv := &ringReceiver{ring: make([]ringDelivery, 256), n: b.N, all: make(chan struct{})}
			for i := range recv.ring {
				d := &recv.ring[i]
				d.id, d.hdr, d.done = fmt.Sprintf("msg-%04d", i), make(map[string]any, 8), &recv.done
			}
			rt, err := runtime.New([]runtime.Route{{
				ID: "hot", ReceiverID: "src", Receiver: recv,
				Bindings: []runtime.Binding{{ID: "b", Sender: discardSender{}}},
				Policy:   runtime.Policy{MaxInFlight: 100, OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
			}}, runtime.Options{Tracer: tracer})
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			b.ReportAllocs()
			b.ResetTimer()
			go func() { done <- rt.Run(ctx) }()
			<-recv.all
			cancel()
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if got := recv.done.Load(); got != int64(b.N) {
				b.Fatalf("settled %d of %d", got, b.N)
			}
		})
	}
}
