package runtime_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// manyDeliveries hands out its deliveries one after another, then waits
// for the route to stop.
type manyDeliveries []ports.Delivery

func (s manyDeliveries) Run(ctx context.Context, emit ports.EmitFunc) error {
	for _, d := range s {
		if err := emit(ctx, d); err != nil {
			return err
		}
	}
	<-ctx.Done()
	return nil
}

// TestLeasesOfManyDeliveriesAreKeptApart: deliveries with different
// leases, all held by a slow target at once, are each extended on their
// own cadence while in flight and never after settling.
func TestLeasesOfManyDeliveriesAreKeptApart(t *testing.T) {
	leases := []time.Duration{90 * time.Millisecond, 150 * time.Millisecond, 240 * time.Millisecond}
	var ds []*leasedDelivery
	var src manyDeliveries
	for i := range 12 {
		d := newLeasedDelivery(leases[i%len(leases)], nil)
		ds = append(ds, d)
		src = append(src, d)
	}
	const hold = 600 * time.Millisecond
	stop := start(t, []runtime.Route{{ID: "r", Receiver: src, Policy: runtime.Policy{MaxInFlight: 12},
		Bindings: []runtime.Binding{{ID: "b", Sender: slowTarget{hold: hold}}}}},
		runtime.Options{DLQ: newMemDLQ()})
	for _, d := range ds {
		select {
		case <-d.settledC:
		case <-waitCtx(t).Done():
			t.Fatal("never settled")
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for i, d := range ds {
		d.mu.Lock()
		// A lease is extended when a third of it is left, by a whole
		// lease: over the hold, at least hold/lease - 1 times.
		min := int(hold/d.lease) - 1
		if d.settled != "ack" || d.late || len(d.extends) < min {
			t.Errorf("delivery %d (lease %s): settled %q, extended after settling %v, %d extensions (want at least %d)",
				i, d.lease, d.settled, d.late, len(d.extends), min)
		}
		d.mu.Unlock()
	}
}

// countedSource emits n deliveries made by mk, as fast as the route takes
// them, then waits for the route to stop.
type countedSource struct {
	n  int
	mk func() ports.Delivery
}

func (s countedSource) Run(ctx context.Context, emit ports.EmitFunc) error {
	for range s.n {
		if err := emit(ctx, s.mk()); err != nil {
			return nil
		}
	}
	<-ctx.Done()
	return nil
}

// plainDelivery acks by counting; leasedPlain adds a long lease, like an
// SQS message's visibility or a Service Bus lock.
type plainDelivery struct {
	env   *messaging.Envelope
	acked *atomic.Int64
	done  chan struct{}
	n     int64
}

func (d *plainDelivery) Envelope() *messaging.Envelope { return d.env }
func (d *plainDelivery) Ack(context.Context) error {
	if d.acked.Add(1) == d.n {
		close(d.done)
	}
	return nil
}
func (d *plainDelivery) Retry(context.Context, time.Duration, error) error { return nil }
func (d *plainDelivery) Extend(context.Context, time.Time) error           { return nil }

type leasedPlain struct {
	plainDelivery
	until time.Time
}

func (d *leasedPlain) LeaseUntil() time.Time { return d.until }

// BenchmarkLeasedDelivery measures what keeping a lease adds to a
// delivery that settles long before its lease needs extending.
func BenchmarkLeasedDelivery(b *testing.B) {
	for _, leased := range []bool{false, true} {
		name := "plain"
		if leased {
			name = "leased"
		}
		b.Run(name, func(b *testing.B) {
			var acked atomic.Int64
			done := make(chan struct{})
			until := time.Now().Add(time.Hour)
			mk := func() ports.Delivery {
				p := plainDelivery{env: messaging.NewEnvelope("s", []byte("p")), acked: &acked, done: done, n: int64(b.N)}
				if leased {
					return &leasedPlain{plainDelivery: p, until: until}
				}
				return &p
			}
			snd := memtransport.NewSender(memtransport.SenderOptions{Discard: true})
			rt, err := runtime.New([]runtime.Route{{ID: "r", Receiver: countedSource{n: b.N, mk: mk},
				Policy:   runtime.Policy{MaxInFlight: 100, OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
				Bindings: []runtime.Binding{{ID: "b", Sender: snd}}}}, runtime.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(b.Context())
			ran := make(chan error, 1)
			b.ResetTimer()
			go func() { ran <- rt.Run(ctx) }()
			<-done
			b.StopTimer()
			cancel()
			if err := <-ran; err != nil {
				b.Fatal(err)
			}
		})
	}
}

// settledInTurn emits its leased deliveries one at a time, each once the
// one before it is settled, then waits for the route to stop.
type settledInTurn []*leasedDelivery

func (s settledInTurn) Run(ctx context.Context, emit ports.EmitFunc) error {
	for _, d := range s {
		if err := emit(ctx, d); err != nil {
			return err
		}
		select {
		case <-d.settledC:
		case <-ctx.Done():
			return nil
		}
	}
	<-ctx.Done()
	return nil
}

// holdBySubject holds each send for the time its message's subject maps
// to (none when it maps to nothing).
type holdBySubject map[string]time.Duration

func (h holdBySubject) Send(ctx context.Context, m ports.OutboundMessage) error {
	hold, ok := h[m.Envelope.Subject]
	if !ok {
		return nil
	}
	return slowTarget{hold: hold}.Send(ctx, m)
}

// TestShortLeaseAfterALongOneIsExtended: the lease table sleeps until the
// earliest lease it knows of falls due, and keeps that wake-up after the
// lease settles. A shorter lease that arrives later must still wake it in
// time: here a message with a one-hour lease is held for 50 ms (long
// enough for the table to plan its wake-up for it) and settles, then a
// message with a 150 ms lease is held by a slow target for four leases.
func TestShortLeaseAfterALongOneIsExtended(t *testing.T) {
	const lease = 150 * time.Millisecond
	long := newLeasedDelivery(time.Hour, nil)
	long.env.Subject = "long"
	short := newLeasedDelivery(lease, nil)
	short.env.Subject = "short"
	hold := holdBySubject{"long": 50 * time.Millisecond, "short": 4 * lease}
	stop := start(t, []runtime.Route{{ID: "r", Receiver: settledInTurn{long, short},
		Bindings: []runtime.Binding{{ID: "b", Sender: hold}}}},
		runtime.Options{DLQ: newMemDLQ()})
	select {
	case <-short.settledC:
	case <-waitCtx(t).Done():
		t.Fatal("never settled")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]*leasedDelivery{"long": long, "short": short} {
		d.mu.Lock()
		if d.settled != "ack" || d.late {
			t.Errorf("%s: settled %q, extended after settling %v", name, d.settled, d.late)
		}
		d.mu.Unlock()
	}
	short.mu.Lock()
	defer short.mu.Unlock()
	if len(short.extends) < 2 {
		t.Errorf("short lease extended %d times while its send took 4 leases", len(short.extends))
	}
}
