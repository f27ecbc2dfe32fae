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
// not sent at all.
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
	for meter.Value("gobridge_route_fenced_total", "r") < 3 {
		select {
		case <-ctx.Done():
			t.Fatalf("fenced %v deliveries, want 3", meter.Value("gobridge_route_fenced_total", "r"))
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
