package runtime_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// rejectingDelivery can be dead-lettered by its own source (ports.Rejecter)
// and records how the route ended it.
type rejectingDelivery struct {
	env       *messaging.Envelope
	rejectErr error // what Reject answers

	mu   sync.Mutex
	ends []string
	done chan struct{}
}

func (d *rejectingDelivery) Envelope() *messaging.Envelope { return d.env }
func (d *rejectingDelivery) Ack(context.Context) error     { d.end("ack"); return nil }
func (d *rejectingDelivery) Retry(context.Context, time.Duration, error) error {
	d.end("retry")
	return nil
}
func (d *rejectingDelivery) Extend(context.Context, time.Time) error { return nil }
func (d *rejectingDelivery) Reject(_ context.Context, cat ports.DLQCategory, _ error) error {
	if d.rejectErr != nil {
		d.mu.Lock()
		d.ends = append(d.ends, "reject refused")
		d.mu.Unlock()
		return d.rejectErr
	}
	d.end("reject " + string(cat))
	return nil
}

func (d *rejectingDelivery) end(how string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ends = append(d.ends, how)
	close(d.done)
}

// TestSourceThatDeadLettersItselfIsAskedToReject: a permanent failure is
// handed to a source configured to dead-letter it (AMQP 1.0 rejected)
// instead of the bridge's DLQ; a source not configured for it says
// NOT_SUPPORTED and gets the bridge's DLQ and an ack as before.
func TestSourceThatDeadLettersItselfIsAskedToReject(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rejectErr error
		wantEnds  []string
		wantDLQ   int
	}{
		{"configured", nil, []string{"reject permanent"}, 0},
		{"not configured", fault.ErrNotSupported, []string{"reject refused", "ack"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &rejectingDelivery{env: messaging.NewEnvelope("s", nil), rejectErr: tc.rejectErr, done: make(chan struct{})}
			dlq := newMemDLQ()
			meter := telemetry.NewMemory()
			stop := start(t, []runtime.Route{{ID: "r", Receiver: oneDelivery{d},
				Bindings: []runtime.Binding{{ID: "b", Sender: failingTarget{fault.ErrForbidden}}}}},
				runtime.Options{DLQ: dlq, Meter: meter})
			select {
			case <-d.done:
			case <-waitCtx(t).Done():
				t.Fatal("never settled")
			}
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			got := []any{d.ends, len(dlq.all()), meter.Value("gobridge_route_messages_rejected_to_source_total", "r", "permanent")}
			want := []any{tc.wantEnds, tc.wantDLQ, float64(1 - tc.wantDLQ)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ends, DLQ entries, rejections counted (-want +got):\n%s", diff)
			}
		})
	}
}

type failingTarget struct{ err error }

func (f failingTarget) Send(context.Context, ports.OutboundMessage) error { return f.err }
