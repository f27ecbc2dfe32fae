package runtime_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// hotDelivery is shaped like an SQS or Service Bus delivery: it has a
// message ID, a few application headers, a delivery key, a redelivery
// count, and wants to hear how it was settled. Its envelope and header map
// are reused from one emit to the next, so the harness allocates nothing
// and allocs/op is the route's own.
type hotDelivery struct {
	env  messaging.Envelope
	hdr  map[string]any
	id   string
	done *atomic.Int64
	busy atomic.Bool // set while the route owns the delivery
}

func (d *hotDelivery) Envelope() *messaging.Envelope { return &d.env }
func (d *hotDelivery) Ack(context.Context) error     { d.done.Add(1); return nil }
func (d *hotDelivery) Retry(context.Context, time.Duration, error) error {
	d.done.Add(1)
	return nil
}
func (d *hotDelivery) Extend(context.Context, time.Time) error { return nil }
func (d *hotDelivery) RedeliveryCount() (int, bool)            { return 0, true }
func (d *hotDelivery) DeliveryKey() string                     { return d.id }
func (d *hotDelivery) Settled(ports.Settlement)                { d.busy.Store(false) }

// hotLeased adds a lease, as SQS visibility and Service Bus locks do.
type hotLeased struct {
	*hotDelivery
	until time.Time
}

func (d *hotLeased) LeaseUntil() time.Time { return d.until }

// hotReceiver emits n deliveries round-robin from a ring, skipping slots the
// route still owns. Before each emit it resets the slot's envelope as a
// transport would build it: an ID, a subject, the payload and two
// application headers.
type hotReceiver struct {
	ring    []hotDelivery
	leased  []hotLeased // nil for unleased deliveries
	payload []byte
	n       int
	all     chan struct{}
	done    atomic.Int64
}

func (r *hotReceiver) Run(ctx context.Context, emit ports.EmitFunc) error {
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
		d.env.SetPayload(r.payload)
		var del ports.Delivery = d
		if r.leased != nil {
			del = &r.leased[slot]
		}
		if err := emit(ctx, del); err != nil {
			return err
		}
		slot = (slot + 1) % len(r.ring)
	}
	close(r.all)
	<-ctx.Done()
	return nil
}

// BenchmarkDirectHotPath measures the route's own work on a direct_hold
// delivery that looks like a broker's: hand-over to a worker, ingress
// headers, dispatch to a discarding sender, settlement, and for "leased"
// the lease bookkeeping. The deliveries and their envelopes are reused, so
// allocs/op and B/op are the runtime's alone. Run it with a fixed
// -benchtime Nx under callgrind to count instructions per message.
func BenchmarkDirectHotPath(b *testing.B) {
	for _, leased := range []bool{false, true} {
		name := "plain"
		if leased {
			name = "leased"
		}
		b.Run(name, func(b *testing.B) {
			recv := &hotReceiver{ring: make([]hotDelivery, 256), n: b.N, all: make(chan struct{}), payload: []byte(`{"n":1}`)}
			until := time.Now().Add(time.Hour)
			if leased {
				recv.leased = make([]hotLeased, len(recv.ring))
			}
			for i := range recv.ring {
				d := &recv.ring[i]
				d.id, d.hdr, d.done = fmt.Sprintf("msg-%04d", i), make(map[string]any, 8), &recv.done
				if leased {
					recv.leased[i] = hotLeased{hotDelivery: d, until: until}
				}
			}
			rt, err := runtime.New([]runtime.Route{{
				ID: "hot", ReceiverID: "src", Receiver: recv,
				Bindings: []runtime.Binding{{ID: "b", Sender: discard{}}},
				Policy:   runtime.Policy{MaxInFlight: 100, OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
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
		})
	}
}
