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

// waitingReceiver emits each delivery from a goroutine of its own, the way
// an HTTP server does, and reports CallerWaits.
type waitingReceiver struct {
	emit chan ports.EmitFunc
}

func (r *waitingReceiver) Capabilities() ports.ReceiverCapabilities {
	return ports.ReceiverCapabilities{Retry: true, RedeliversUnsettled: true, CallerWaits: true}
}

func (r *waitingReceiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	r.emit <- emit
	<-ctx.Done()
	return nil
}

// ackDelivery records whether it was settled.
type ackDelivery struct {
	env   *messaging.Envelope
	acked atomic.Bool
}

func (d *ackDelivery) Envelope() *messaging.Envelope { return d.env }
func (d *ackDelivery) Ack(context.Context) error     { d.acked.Store(true); return nil }
func (d *ackDelivery) Retry(context.Context, time.Duration, error) error {
	return nil
}
func (d *ackDelivery) Extend(context.Context, time.Time) error { return nil }

// peakSender blocks every send until release closes and counts the sends
// in progress.
type peakSender struct {
	release chan struct{}
	cur     atomic.Int32
	peak    atomic.Int32
	entered chan struct{}
}

func (s *peakSender) Send(ctx context.Context, _ ports.OutboundMessage) error {
	n := s.cur.Add(1)
	defer s.cur.Add(-1)
	for {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			break
		}
	}
	s.entered <- struct{}{}
	select {
	case <-s.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func TestCallerWaitsHandlesOnTheCallerWithinTheLimit(t *testing.T) {
	const limit, callers = 2, 6
	recv := &waitingReceiver{emit: make(chan ports.EmitFunc, 1)}
	out := &peakSender{release: make(chan struct{}), entered: make(chan struct{}, callers)}
	start(t, []runtime.Route{{
		ID: "r", ReceiverID: "in", Receiver: recv,
		Bindings: []runtime.Binding{{ID: "b", Sender: out, Address: "a"}},
		Policy:   runtime.Policy{MaxInFlight: limit, OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
	}}, runtime.Options{})
	emit := <-recv.emit

	var wg sync.WaitGroup
	ds := make([]*ackDelivery, callers)
	errs := make([]error, callers)
	for i := range ds {
		ds[i] = &ackDelivery{env: messaging.NewEnvelope("s", []byte("x"))}
		wg.Go(func() {
			errs[i] = emit(waitCtx(t), ds[i])
			// emit returns only once the delivery is settled.
			if errs[i] == nil && !ds[i].acked.Load() {
				t.Errorf("emit %d returned before the delivery was acked", i)
			}
		})
	}
	for range limit {
		<-out.entered
	}
	close(out.release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("emit %d: %v", i, err)
		}
	}
	if p := out.peak.Load(); p > limit {
		t.Errorf("%d sends ran at once; the limit is %d", p, limit)
	}
}

// abandonableDelivery is an ackDelivery whose source can go away, like an
// HTTP request, and that records a Retry.
type abandonableDelivery struct {
	ackDelivery
	ctx     context.Context
	retried atomic.Bool
}

func (d *abandonableDelivery) Abandoned() <-chan struct{}      { return d.ctx.Done() }
func (d *abandonableDelivery) AbandonContext() context.Context { return d.ctx }
func (d *abandonableDelivery) Retry(context.Context, time.Duration, error) error {
	d.retried.Store(true)
	return nil
}

// blockingSender blocks until its context ends.
type blockingSender struct{}

func (blockingSender) Send(ctx context.Context, _ ports.OutboundMessage) error {
	<-ctx.Done()
	return ctx.Err()
}

// A send that overruns send_timeout on an abandonable delivery is a
// transient failure that is retried, not an abandonment left unsettled.
func TestSendTimeoutOfAbandonableDeliveryIsRetried(t *testing.T) {
	recv := &waitingReceiver{emit: make(chan ports.EmitFunc, 1)}
	start(t, []runtime.Route{{
		ID: "r", ReceiverID: "in", Receiver: recv,
		Bindings: []runtime.Binding{{ID: "b", Sender: blockingSender{}, Address: "a"}},
		Policy:   runtime.Policy{SendTimeout: 20 * time.Millisecond, OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
	}}, runtime.Options{})
	emit := <-recv.emit
	d := &abandonableDelivery{ackDelivery: ackDelivery{env: messaging.NewEnvelope("s", []byte("x"))}, ctx: waitCtx(t)}
	if err := emit(waitCtx(t), d); err != nil {
		t.Fatal(err)
	}
	if !d.retried.Load() || d.acked.Load() {
		t.Errorf("retried %v, acked %v; want a retry after the send timeout", d.retried.Load(), d.acked.Load())
	}
}
