package runtime_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

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
