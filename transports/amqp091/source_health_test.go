package amqp091

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestReceiverSourceHealth: the receiver reports its path converged only
// while its consumer is open on a connected session: not before Run, not
// while the broker is away, again once it consumes after the reconnect,
// and not after Run stopped.
func TestReceiverSourceHealth(t *testing.T) {
	requireBroker(t, brokerURL())
	a := newAdmin(t, brokerURL())
	q := uniqueName(t, "health")
	a.deleteOnCleanup([]string{q}, nil)
	proxy := newProxy(t)
	sess := newTestSession(t, proxy.url(), Topology{Queues: []QueueSpec{{Name: q}}})
	recv, err := NewReceiver(sess, ReceiverConfig{Queue: q})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = recv.Close(context.Background()) })
	want := func(what string, converged bool) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			h := recv.SourceHealth()
			if h.Converged == converged {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: converged = %v (%s), want %v", what, h.Converged, h.Detail, converged)
			}
			<-tick.C
		}
	}
	want("before Run", false)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- recv.Run(ctx, func(context.Context, ports.Delivery) error { return nil })
	}()
	want("consuming", true)
	proxy.cut()
	want("broker away", false)
	proxy.restore()
	want("consuming after the reconnect", true)
	stop()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	want("after Run", false)
}
