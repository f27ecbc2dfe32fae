package runtime_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

func TestRedrive(t *testing.T) {
	for _, mode := range []runtime.DeliveryMode{runtime.DirectHold, runtime.SharedOutbox} {
		t.Run(string(mode), func(t *testing.T) {
			var broken atomic.Bool
			broken.Store(true)
			recv := memtransport.NewReceiver(memtransport.Options{})
			snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error {
				if broken.Load() {
					return fault.ErrForbidden
				}
				return nil
			}})
			dlq := newMemDLQ()
			route := outboxRoute(recv, snd, runtime.Policy{})
			route.DeliveryMode = mode
			// A processor that is not idempotent: a redrive must apply it
			// once in all, whichever stage wrote the DLQ entry.
			route.Processors = []ports.Processor{procFunc{"append", func(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
				env.SetPayload(append(env.Payload(), "+p"...))
				return next(ctx, env)
			}}}
			rt, _ := startRT(t, []runtime.Route{route}, runtime.Options{DLQ: dlq, Outbox: newFakeOutbox()})

			orig := messaging.NewEnvelope("orders.created", []byte("body"))
			publish(t, recv, orig)
			entry := dlq.wait(t, 1)[0]

			// While the target still refuses, a redrive fails again: the
			// old entry is replaced by a new one that links back. On an
			// outbox route the redrive succeeds at persist time and the
			// drainer records the new failure.
			_, err := rt.Redrive(waitCtx(t), entry.ID)
			if mode == runtime.DirectHold && !errors.Is(err, fault.ErrForbidden) || mode == runtime.SharedOutbox && err != nil {
				t.Fatalf("redrive against a broken target = %v", err)
			}
			es := dlq.wait(t, 1)
			if len(es) != 1 || es[0].ID == entry.ID || es[0].Envelope.Headers[ports.HeaderRedrivenFrom] != orig.ID {
				t.Fatalf("after a failed redrive the DLQ holds %+v", es)
			}

			broken.Store(false)
			newID, err := rt.Redrive(waitCtx(t), es[0].ID)
			if err != nil {
				t.Fatalf("redrive: %v", err)
			}
			if err := snd.WaitSent(waitCtx(t), 1); err != nil {
				t.Fatal(err)
			}
			got := snd.Sent()[0].Envelope
			want := []any{newID, "orders.created", "body+p"}
			if diff := cmp.Diff(want, []any{got.ID, got.Subject, string(got.Payload())}); diff != "" {
				t.Errorf("redriven message (-want +got):\n%s", diff)
			}
			if newID == orig.ID || len(dlq.all()) != 0 {
				t.Errorf("new id %q (old %q), %d DLQ entries left; want a fresh id and an empty DLQ", newID, orig.ID, len(dlq.all()))
			}
		})
	}
}

func TestRedriveErrors(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	rt, err := runtime.New([]runtime.Route{{ID: "r", Receiver: recv, Bindings: []runtime.Binding{{ID: "b", Sender: discard{}}}}},
		runtime.Options{DLQ: newMemDLQ()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Redrive(context.Background(), "x"); !errors.Is(err, fault.ErrUnavailable) {
		t.Errorf("redrive on a stopped runtime = %v, want UNAVAILABLE", err)
	}
}
