package runtime_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// gateSender blocks every Send until its gate opens or ctx ends, and counts
// calls and closes.
type gateSender struct {
	gate    chan struct{}
	entered chan struct{}
	closed  atomic.Int32
}

func newGateSender() *gateSender {
	return &gateSender{gate: make(chan struct{}), entered: make(chan struct{}, 100)}
}

func (g *gateSender) Send(ctx context.Context, _ ports.OutboundMessage) error {
	g.entered <- struct{}{}
	select {
	case <-g.gate:
		return nil
	case <-ctx.Done():
		return fault.ErrTimeout.Wrap(ctx.Err())
	}
}

func (g *gateSender) Close(context.Context) error { g.closed.Add(1); return nil }

func (g *gateSender) waitEntered(t *testing.T, n int) {
	t.Helper()
	ctx := waitCtx(t)
	for range n {
		select {
		case <-g.entered:
		case <-ctx.Done():
			t.Fatal("sends did not start")
		}
	}
}

func TestGracefulStopFinishesInFlight(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := newGateSender()
	stop := start(t, []runtime.Route{{
		ID: "g", Receiver: recv, Policy: runtime.Policy{MaxInFlight: 3},
		Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
	}}, runtime.Options{DLQ: newMemDLQ(), StopTimeout: waitTimeout})
	publish(t, recv, messaging.NewEnvelope("a", nil), messaging.NewEnvelope("b", nil), messaging.NewEnvelope("c", nil))
	snd.waitEntered(t, 3)
	publish(t, recv, messaging.NewEnvelope("late", nil)) // waits behind the full pool

	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	close(snd.gate) // in-flight sends complete while the runtime drains
	if err := <-stopped; err != nil {
		t.Fatalf("Run returned %v", err)
	}
	st := recv.Stats()
	if st.Acked < 3 || st.Acked+st.Pending() != 4 || st.DoubleSettlements != 0 {
		t.Errorf("stats after stop = %+v: want the three in-flight acked and nothing lost", st)
	}
	if snd.closed.Load() != 1 {
		t.Errorf("sender closed %d times, want once", snd.closed.Load())
	}
}

func TestStopTimeoutLeavesDeliveriesUnsettled(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := newGateSender()
	stop := start(t, []runtime.Route{{
		ID: "u", Receiver: recv, Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
		// Even with drop policies a cancelled delivery is not dropped.
		Policy: runtime.Policy{OnPermanentFailure: runtime.Drop, OnExpired: runtime.Drop},
	}}, runtime.Options{StopTimeout: 20 * time.Millisecond})
	ids := publish(t, recv, messaging.NewEnvelope("a", nil))
	snd.waitEntered(t, 1)
	if err := stop(); err != nil {
		t.Fatalf("Run returned %v", err)
	}
	st := recv.Stats()
	if st.Acked != 0 || st.Retried != 0 || st.Unsettled != 1 {
		t.Errorf("stats = %+v, want the delivery left unsettled", st)
	}
	if u := recv.Unsettled(); len(u) != 1 || u[0] != ids[0] {
		t.Errorf("unsettled = %v, want %v", u, ids)
	}
}

func TestReceiverFailureStopsRun(t *testing.T) {
	snd := memtransport.NewSender(memtransport.SenderOptions{})
	rt, err := runtime.New([]runtime.Route{{
		ID: "f", Receiver: failingReceiver{errBoom}, Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
	}}, runtime.Options{DLQ: newMemDLQ()})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Run(waitCtx(t)); !errors.Is(err, errBoom) {
		t.Fatalf("Run = %v, want the receiver's error", err)
	}
}
