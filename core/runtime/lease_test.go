package runtime_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// leasedDelivery is hidden by its source only for a short lease, as an SQS
// message is by its visibility timeout; it records what the route does.
type leasedDelivery struct {
	env       *messaging.Envelope
	lease     time.Duration
	extendErr error

	mu       sync.Mutex
	until    time.Time
	extends  []time.Time
	settled  string
	late     bool // Extend called after settlement
	settledC chan struct{}
}

func newLeasedDelivery(lease time.Duration, extendErr error) *leasedDelivery {
	return &leasedDelivery{env: messaging.NewEnvelope("s", nil), lease: lease, extendErr: extendErr,
		until: time.Now().Add(lease), settledC: make(chan struct{})}
}

func (d *leasedDelivery) Envelope() *messaging.Envelope { return d.env }
func (d *leasedDelivery) LeaseUntil() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.until
}
func (d *leasedDelivery) Ack(context.Context) error { return d.settle("ack") }
func (d *leasedDelivery) Retry(context.Context, time.Duration, error) error {
	return d.settle("retry")
}

func (d *leasedDelivery) Extend(_ context.Context, until time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.settled != "" {
		d.late = true
	}
	if d.extendErr != nil {
		return d.extendErr
	}
	d.extends = append(d.extends, until)
	d.until = until
	return nil
}

func (d *leasedDelivery) settle(how string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.settled = how
	close(d.settledC)
	return nil
}

// slowTarget holds each send for hold, or until its context ends.
type slowTarget struct {
	hold      time.Duration
	cancelled chan error
}

func (s slowTarget) Send(ctx context.Context, _ ports.OutboundMessage) error {
	select {
	case <-time.After(s.hold):
		return nil
	case <-ctx.Done():
		s.cancelled <- context.Cause(ctx)
		return fault.ErrTimeout.Wrap(ctx.Err())
	}
}

// TestLeaseIsExtendedWhileTheTargetIsSlow: a message whose send takes
// four times its source's lease must not become visible to other
// consumers meanwhile. The route extends the lease while it holds the
// message, never after settling it, and acks it once.
func TestLeaseIsExtendedWhileTheTargetIsSlow(t *testing.T) {
	const lease = 150 * time.Millisecond
	d := newLeasedDelivery(lease, nil)
	meter := telemetry.NewMemory()
	stop := start(t, []runtime.Route{{ID: "r", Receiver: oneDelivery{d},
		Bindings: []runtime.Binding{{ID: "b", Sender: slowTarget{hold: 4 * lease}}}}},
		runtime.Options{DLQ: newMemDLQ(), Meter: meter})
	select {
	case <-d.settledC:
	case <-waitCtx(t).Done():
		t.Fatal("never settled")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.settled != "ack" || d.late {
		t.Errorf("settled %q, extended after settlement: %v", d.settled, d.late)
	}
	if len(d.extends) < 2 {
		t.Fatalf("lease extended %d times while the send took 4 leases", len(d.extends))
	}
	for i := 1; i < len(d.extends); i++ {
		if !d.extends[i].After(d.extends[i-1]) {
			t.Errorf("extension %d does not move the deadline: %v", i, d.extends)
		}
	}
	if got := meter.Value("gobridge_route_lease_extensions_total", "r"); got != float64(len(d.extends)) {
		t.Errorf("extensions counted %v, made %d", got, len(d.extends))
	}
}

// TestLostLeaseStopsWorkAndLeavesTheMessageUnsettled: when the source
// refuses to extend the lease, another consumer may already have the
// message, so the route stops the send in progress and settles nothing.
func TestLostLeaseStopsWorkAndLeavesTheMessageUnsettled(t *testing.T) {
	const lease = 150 * time.Millisecond
	d := newLeasedDelivery(lease, fault.ErrNotFound.WithMessage("receipt handle expired"))
	target := slowTarget{hold: time.Hour, cancelled: make(chan error, 1)}
	meter := telemetry.NewMemory()
	stop := start(t, []runtime.Route{{ID: "r", Receiver: oneDelivery{d},
		Bindings: []runtime.Binding{{ID: "b", Sender: target}}}},
		runtime.Options{DLQ: newMemDLQ(), Meter: meter})
	select {
	case cause := <-target.cancelled:
		if !errors.Is(cause, fault.ErrUnavailable) {
			t.Errorf("send cancelled with %v, want the lost lease", cause)
		}
	case <-waitCtx(t).Done():
		t.Fatal("the send went on after the lease was lost")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.settled != "" {
		t.Errorf("a message whose lease was lost was settled with %s", d.settled)
	}
	if got := meter.Value("gobridge_route_leases_lost_total", "r"); got != 1 {
		t.Errorf("leases lost counted %v, want 1", got)
	}
}

// firstSendHangs holds its first send until the context ends; later sends
// return at once, each reporting whether its context was already done.
type firstSendHangs struct {
	mu    sync.Mutex
	calls int
	late  []error // the context's cause at each later send
}

func (s *firstSendHangs) Send(ctx context.Context, _ ports.OutboundMessage) error {
	s.mu.Lock()
	s.calls++
	first := s.calls == 1
	s.mu.Unlock()
	if first {
		<-ctx.Done()
		return fault.ErrTimeout.Wrap(ctx.Err())
	}
	s.mu.Lock()
	s.late = append(s.late, context.Cause(ctx))
	s.mu.Unlock()
	return nil
}

// TestLostLeaseDoesNotReachTheNextDelivery: one worker handles a delivery
// whose lease is lost, then healthy leased deliveries. The worker reuses
// its lease context from one delivery to the next; the cancellation of the
// lost one must not carry over to them.
func TestLostLeaseDoesNotReachTheNextDelivery(t *testing.T) {
	const lease = 150 * time.Millisecond
	lost := newLeasedDelivery(lease, fault.ErrNotFound.WithMessage("receipt handle expired"))
	next := []*leasedDelivery{newLeasedDelivery(time.Hour, nil), newLeasedDelivery(time.Hour, nil)}
	target := &firstSendHangs{}
	stop := start(t, []runtime.Route{{ID: "r", Receiver: manyDeliveries{lost, next[0], next[1]},
		Policy:   runtime.Policy{MaxInFlight: 1},
		Bindings: []runtime.Binding{{ID: "b", Sender: target}}}},
		runtime.Options{DLQ: newMemDLQ()})
	for _, d := range next {
		select {
		case <-d.settledC:
		case <-waitCtx(t).Done():
			t.Fatal("a delivery after the lost lease never settled")
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for i, d := range next {
		d.mu.Lock()
		if d.settled != "ack" {
			t.Errorf("delivery %d after the lost lease settled %q, want ack", i, d.settled)
		}
		d.mu.Unlock()
	}
	target.mu.Lock()
	defer target.mu.Unlock()
	for i, cause := range target.late {
		if cause != nil {
			t.Errorf("send %d after the lost lease ran under a cancelled context: %v", i, cause)
		}
	}
	lost.mu.Lock()
	defer lost.mu.Unlock()
	if lost.settled != "" {
		t.Errorf("the delivery whose lease was lost was settled with %s", lost.settled)
	}
}

// TestSendTimeoutOfALeasedDelivery: the send guard's timeout reaches a
// leased delivery's send (its context derives from the guard's), the
// delivery is retried as a timed-out send, and the next leased delivery on
// the same worker sends under a live context.
func TestSendTimeoutOfALeasedDelivery(t *testing.T) {
	slow := newLeasedDelivery(time.Hour, nil)
	next := newLeasedDelivery(time.Hour, nil)
	target := &firstSendHangs{}
	stop := start(t, []runtime.Route{{ID: "r", Receiver: manyDeliveries{slow, next},
		Policy:   runtime.Policy{MaxInFlight: 1, SendTimeout: 50 * time.Millisecond, Backoff: runtime.Backoff{Initial: time.Hour}},
		Bindings: []runtime.Binding{{ID: "b", Sender: target}}}},
		runtime.Options{DLQ: newMemDLQ()})
	for _, d := range []*leasedDelivery{slow, next} {
		select {
		case <-d.settledC:
		case <-waitCtx(t).Done():
			t.Fatal("a delivery never settled: the send timeout did not reach the leased send")
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	got := []string{slow.settled, next.settled}
	if diff := cmp.Diff([]string{"retry", "ack"}, got); diff != "" {
		t.Errorf("settlements (-want +got):\n%s", diff)
	}
	target.mu.Lock()
	defer target.mu.Unlock()
	if diff := cmp.Diff([]error{nil}, target.late, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("causes of the later sends' contexts (-want +got):\n%s", diff)
	}
}
