package runtime_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// gatedTarget holds its first send until release closes, and counts sends.
type gatedTarget struct {
	release chan struct{}
	entered chan struct{}
	mu      sync.Mutex
	sends   int
}

func (g *gatedTarget) Send(ctx context.Context, _ ports.OutboundMessage) error {
	g.mu.Lock()
	g.sends++
	first := g.sends == 1
	g.mu.Unlock()
	if first {
		close(g.entered)
		<-g.release
	}
	return nil
}

// TestFenceLeavesDeliveriesInHandWithTheirSource: an exclusive route's
// runtime holds deliveries when its instance loses the lease that made it
// the source's only consumer (a process paused past its lease wakes up
// with them). From then on it must neither send them nor settle them: the
// new lease holder receives them again from the broker. The delivery
// whose send was in progress is not acknowledged, and those behind it are
// not sent at all (with one in flight, its worker holds the route until
// it stops, so they are not even taken).
func TestFenceLeavesDeliveriesInHandWithTheirSource(t *testing.T) {
	ds := []*leasedDelivery{newLeasedDelivery(time.Hour, nil), newLeasedDelivery(time.Hour, nil), newLeasedDelivery(time.Hour, nil)}
	var src manyDeliveries
	for _, d := range ds {
		src = append(src, d)
	}
	var held atomic.Bool
	held.Store(true)
	target := &gatedTarget{release: make(chan struct{}), entered: make(chan struct{})}
	meter := telemetry.NewMemory()
	stop := start(t, []runtime.Route{{ID: "r", Receiver: src, Policy: runtime.Policy{MaxInFlight: 1},
		Bindings: []runtime.Binding{{ID: "b", Sender: target}}}},
		runtime.Options{DLQ: newMemDLQ(), Meter: meter, Fence: held.Load})
	select {
	case <-target.entered:
	case <-waitCtx(t).Done():
		t.Fatal("the first send never started")
	}
	held.Store(false) // the lease is gone while the send is in progress
	close(target.release)
	ctx := waitCtx(t)
	for meter.Value("gobridge_route_fenced_total", "r") < 1 {
		select {
		case <-ctx.Done():
			t.Fatalf("fenced %v deliveries, want 1", meter.Value("gobridge_route_fenced_total", "r"))
		case <-time.After(2 * time.Millisecond):
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	target.mu.Lock()
	sends := target.sends
	target.mu.Unlock()
	if sends != 1 {
		t.Errorf("%d sends, want only the one in progress when the lease was lost", sends)
	}
	for i, d := range ds {
		d.mu.Lock()
		if d.settled != "" {
			t.Errorf("delivery %d settled with %s after the lease was lost", i, d.settled)
		}
		d.mu.Unlock()
	}
}

// bouncingDelivery goes straight back to its source when the route leaves
// it unsettled, as an MQTT message held for a closed receiver does.
type bouncingDelivery struct {
	*leasedDelivery
	back chan<- *bouncingDelivery
}

func (d *bouncingDelivery) Settled(st ports.Settlement) {
	if st.Outcome == ports.SettledUnsettled {
		d.back <- d
	}
}

// bouncingSource emits its deliveries, and each one again whenever it
// comes back, counting emissions.
type bouncingSource struct {
	first []*bouncingDelivery
	back  chan *bouncingDelivery
	emits atomic.Int64
}

func (s *bouncingSource) Run(ctx context.Context, emit ports.EmitFunc) error {
	for _, d := range s.first {
		s.emits.Add(1)
		if err := emit(ctx, d); err != nil {
			return nil
		}
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case d := <-s.back:
			s.emits.Add(1)
			if err := emit(ctx, d); err != nil {
				return nil
			}
		}
	}
}

// TestFencedDeliveriesDoNotSpin: a source that offers a delivery again as
// soon as the route leaves it unsettled must not turn a lost lease into a
// busy loop: a fenced delivery keeps its worker until the fence holds
// again or intake stops, so the route takes no more than its in-flight
// limit meanwhile.
func TestFencedDeliveriesDoNotSpin(t *testing.T) {
	src := &bouncingSource{back: make(chan *bouncingDelivery, 16)}
	for range 2 {
		src.first = append(src.first, &bouncingDelivery{leasedDelivery: newLeasedDelivery(time.Hour, nil), back: src.back})
	}
	var held atomic.Bool // never held: every delivery is fenced
	meter := telemetry.NewMemory()
	stop := start(t, []runtime.Route{{ID: "r", Receiver: src, Policy: runtime.Policy{MaxInFlight: 2},
		Bindings: []runtime.Binding{{ID: "b", Sender: &gatedTarget{release: make(chan struct{}), entered: make(chan struct{})}}}}},
		runtime.Options{DLQ: newMemDLQ(), Meter: meter, Fence: held.Load})
	ctx := waitCtx(t)
	for meter.Value("gobridge_route_fenced_total", "r") < 2 {
		select {
		case <-ctx.Done():
			t.Fatal("the deliveries were never fenced")
		case <-time.After(2 * time.Millisecond):
		}
	}
	// Give a spinning route every chance to show itself: watch for a
	// third emission for a while.
	window := time.NewTimer(200 * time.Millisecond)
	defer window.Stop()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
watch:
	for src.emits.Load() <= 2 {
		select {
		case <-window.C:
			break watch
		case <-tick.C:
		}
	}
	if n := src.emits.Load(); n > 2 {
		t.Errorf("%d emissions while the lease was lost: fenced deliveries went back and came round again", n)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}
