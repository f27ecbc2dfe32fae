package runtime_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// nopDelivery is a delivery whose settlement only counts.
type nopDelivery struct {
	env  messaging.Envelope
	done *atomic.Int64
	busy atomic.Bool // set while the route owns the delivery
}

func (d *nopDelivery) Envelope() *messaging.Envelope { return &d.env }
func (d *nopDelivery) Ack(context.Context) error     { return d.settle() }
func (d *nopDelivery) Retry(context.Context, time.Duration, error) error {
	return d.settle()
}
func (d *nopDelivery) settle() error {
	d.done.Add(1)
	d.busy.Store(false)
	return nil
}
func (d *nopDelivery) Extend(context.Context, time.Time) error { return nil }

// ringReceiver emits n deliveries taken round-robin from a ring, skipping
// slots the route still owns, then waits for cancellation.
type ringReceiver struct {
	ring []nopDelivery
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
		if err := emit(ctx, d); err != nil {
			return err
		}
		slot = (slot + 1) % len(r.ring)
	}
	close(r.all)
	<-ctx.Done()
	return nil
}

// BenchmarkRouteOverhead isolates the route from any transport: deliveries
// are preallocated and settle by bumping a counter, and the sender
// discards. What remains is the hand-over to a worker, the header rules,
// the dispatch and the settlement.
func BenchmarkRouteOverhead(b *testing.B) {
	recv := &ringReceiver{ring: make([]nopDelivery, 1024), n: b.N, all: make(chan struct{})}
	for i := range recv.ring {
		recv.ring[i] = nopDelivery{env: *messaging.NewEnvelope("s", []byte(`{"n":1}`)), done: &recv.done}
	}
	rt, err := runtime.New([]runtime.Route{{
		ID: "o", Receiver: recv, Bindings: []runtime.Binding{{ID: "b", Sender: discard{}}},
		Policy: runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
	}}, runtime.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	b.ReportAllocs()
	b.ResetTimer()
	go func() { done <- rt.Run(ctx) }()
	<-recv.all
	cancel() // graceful: waits for the in-flight rest
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if got := recv.done.Load(); got != int64(b.N) {
		b.Fatalf("settled %d of %d", got, b.N)
	}
}

type discard struct{}

func (discard) Send(context.Context, ports.OutboundMessage) error { return nil }

// BenchmarkHandoffFloor is the same-run baseline for the figures above: a
// bare hand-over of one value to a pool of 100 goroutines over an
// unbuffered channel, which is the minimum scheduling work any concurrent
// route does per message.
func BenchmarkHandoffFloor(b *testing.B) {
	work := make(chan *nopDelivery)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	var n atomic.Int64
	for range 100 {
		wg.Go(func() {
			for {
				select {
				case d := <-work:
					_ = d
					n.Add(1)
				case <-quit:
					return
				}
			}
		})
	}
	d := &nopDelivery{}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		work <- d
	}
	close(quit)
	wg.Wait()
}
