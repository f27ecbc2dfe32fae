package runtime_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// stuckSender never finishes on its own; it returns the bare context error.
type stuckSender struct{}

func (stuckSender) Send(ctx context.Context, _ ports.OutboundMessage) error {
	<-ctx.Done()
	return ctx.Err()
}

func TestSendTimeoutIsTransientAndReusable(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	start(t, []runtime.Route{{
		ID: "t", Receiver: recv, Bindings: []runtime.Binding{{ID: "b", Sender: stuckSender{}}},
		Policy: runtime.Policy{MaxInFlight: 1, SendTimeout: 10 * time.Millisecond, Backoff: runtime.Backoff{Initial: time.Hour}},
	}}, runtime.Options{DLQ: newMemDLQ()})
	// Two messages through one worker: the second proves the timeout
	// machinery is re-armed after it fired.
	publish(t, recv, messaging.NewEnvelope("a", nil), messaging.NewEnvelope("b", nil))
	if err := recv.WaitRetried(waitCtx(t), 2); err != nil {
		t.Fatal(err)
	}
	for _, r := range recv.Retried() {
		if !errors.Is(r.Reason, fault.ErrTimeout) || !errors.Is(r.Reason, context.Canceled) && !errors.Is(r.Reason, context.DeadlineExceeded) {
			t.Errorf("retry reason = %v, want TIMEOUT wrapping the context error", r.Reason)
		}
	}
}

// abandonDelivery is a delivery whose source can give up on it.
type abandonDelivery struct {
	env       *messaging.Envelope
	abandoned chan struct{}
	mu        sync.Mutex
	settled   int
}

func (d *abandonDelivery) Envelope() *messaging.Envelope           { return d.env }
func (d *abandonDelivery) Abandoned() <-chan struct{}              { return d.abandoned }
func (d *abandonDelivery) Extend(context.Context, time.Time) error { return nil }
func (d *abandonDelivery) Ack(context.Context) error               { return d.settle() }
func (d *abandonDelivery) Retry(context.Context, time.Duration, error) error {
	return d.settle()
}
func (d *abandonDelivery) settle() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.settled++
	return nil
}

// oneShotReceiver emits one delivery and then waits for cancellation.
type oneShotReceiver struct{ d ports.Delivery }

func (o oneShotReceiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	if err := emit(ctx, o.d); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

func TestAbandonedDeliveryIsLeftUnsettled(t *testing.T) {
	d := &abandonDelivery{env: messaging.NewEnvelope("s", nil), abandoned: make(chan struct{})}
	snd := newGateSender()
	meter := telemetry.NewMemory()
	start(t, []runtime.Route{{
		ID: "a", Receiver: oneShotReceiver{d}, Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
	}}, runtime.Options{DLQ: newMemDLQ(), Meter: meter})
	snd.waitEntered(t, 1)
	close(d.abandoned) // the client went away mid-send
	ctx := waitCtx(t)
	for meter.Value("gobridge_route_messages_unsettled_total", "a") != 1 {
		select {
		case <-ctx.Done():
			t.Fatal("delivery was not abandoned")
		case <-time.After(time.Millisecond):
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.settled != 0 {
		t.Errorf("abandoned delivery settled %d times, want 0", d.settled)
	}
}
