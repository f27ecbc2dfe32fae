package runtime_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// hookRecorder is a processor that registers a settlement hook for every
// message and records what the hooks saw.
type hookRecorder struct {
	mu   sync.Mutex
	got  []ports.Settlement
	seen chan struct{}
}

func (h *hookRecorder) Name() string { return "hooks" }

func (h *hookRecorder) Process(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
	if !ports.OnSettled(ctx, func(s ports.Settlement) {
		h.mu.Lock()
		h.got = append(h.got, s)
		h.mu.Unlock()
		h.seen <- struct{}{}
	}) {
		return fault.ErrInternal.WithMessage("no settlement scope in the route context")
	}
	return next(ctx, env)
}

func TestSettlementHooksSeeTheOutcome(t *testing.T) {
	tests := []struct {
		name string
		fail error
		want ports.Settlement
	}{
		{"delivered", nil, ports.Settlement{Outcome: ports.SettledAcked, Terminal: true}},
		{"retried", fault.ErrConnectionLost, ports.Settlement{Outcome: ports.SettledRetried, Err: fault.ErrConnectionLost}},
		{"dead-lettered", fault.ErrForbidden, ports.Settlement{Outcome: ports.SettledAcked, Terminal: true, Err: fault.ErrForbidden}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc := clock.NewFake(t0)
			recv := memtransport.NewReceiver(memtransport.Options{Clock: fc})
			snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return tc.fail }})
			h := &hookRecorder{seen: make(chan struct{}, 4)}
			start(t, []runtime.Route{{
				ID: "h", Receiver: recv, Processors: []ports.Processor{h},
				Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
			}}, runtime.Options{Clock: fc, DLQ: newMemDLQ()})
			publish(t, recv, messaging.NewEnvelope("s", nil))
			select {
			case <-h.seen:
			case <-waitCtx(t).Done():
				t.Fatal("hook never fired")
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			if diff := cmp.Diff([]ports.Settlement{tc.want}, h.got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("settlements (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSettlementHookFiresForAbandonedDelivery(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := newGateSender()
	h := &hookRecorder{seen: make(chan struct{}, 4)}
	stop := start(t, []runtime.Route{{
		ID: "h", Receiver: recv, Processors: []ports.Processor{h},
		Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
	}}, runtime.Options{DLQ: newMemDLQ(), StopTimeout: 10 * time.Millisecond})
	publish(t, recv, messaging.NewEnvelope("s", nil))
	snd.waitEntered(t, 1)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.got) != 1 || h.got[0].Outcome != ports.SettledUnsettled || h.got[0].Terminal {
		t.Errorf("settlements = %+v, want one non-terminal unsettled", h.got)
	}
}

func TestRunTwiceIsAnError(t *testing.T) {
	rt, err := runtime.New([]runtime.Route{{
		ID: "r", Receiver: memtransport.NewReceiver(memtransport.Options{}),
		Bindings: []runtime.Binding{{ID: "b", Sender: discard{}}},
	}}, runtime.Options{DLQ: newMemDLQ()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := rt.Run(ctx); err != nil {
		t.Fatalf("first Run: %v", err)
	}
	if err := rt.Run(ctx); err == nil {
		t.Fatal("second Run succeeded; want an error")
	}
}

// panicAckDelivery panics when acknowledged.
type panicAckDelivery struct{ abandonDelivery }

func (*panicAckDelivery) Ack(context.Context) error { panic("ack exploded") }

func TestPanickingAckDoesNotKillTheWorker(t *testing.T) {
	bad := &panicAckDelivery{abandonDelivery{env: messaging.NewEnvelope("bad", nil), abandoned: make(chan struct{})}}
	good := &abandonDelivery{env: messaging.NewEnvelope("good", nil), abandoned: make(chan struct{})}
	recv := &listReceiver{ds: []ports.Delivery{bad, good}}
	snd := memtransport.NewSender(memtransport.SenderOptions{})
	start(t, []runtime.Route{{
		ID: "p", Receiver: recv, Policy: runtime.Policy{MaxInFlight: 1},
		Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
	}}, runtime.Options{DLQ: newMemDLQ()})
	if err := snd.WaitSent(waitCtx(t), 2); err != nil {
		t.Fatal(err)
	}
	ctx := waitCtx(t)
	for {
		good.mu.Lock()
		n := good.settled
		good.mu.Unlock()
		if n == 1 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the delivery after the panicking ack was never settled")
		case <-time.After(time.Millisecond):
		}
	}
}

// listReceiver emits a fixed list of deliveries, then waits.
type listReceiver struct{ ds []ports.Delivery }

func (l *listReceiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	for _, d := range l.ds {
		if err := emit(ctx, d); err != nil {
			return err
		}
	}
	<-ctx.Done()
	return nil
}
