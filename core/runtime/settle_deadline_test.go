package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// hangingDelivery's Ack and Retry block until their context ends, as a
// broker client's do while the broker is down.
type hangingDelivery struct {
	env      *messaging.Envelope
	settling chan struct{}
}

func (d hangingDelivery) Envelope() *messaging.Envelope { return d.env }
func (d hangingDelivery) Ack(ctx context.Context) error { return d.wait(ctx) }
func (d hangingDelivery) Retry(ctx context.Context, _ time.Duration, _ error) error {
	return d.wait(ctx)
}
func (d hangingDelivery) Extend(context.Context, time.Time) error { return nil }

func (d hangingDelivery) wait(ctx context.Context) error {
	close(d.settling)
	<-ctx.Done()
	return ctx.Err()
}

// TestShutdownWhileSourceUnreachableIsBounded: the target accepted the
// message but the source's broker went away, so the Ack hangs. Stopping
// the bridge must still finish within the stop timeout and a short grace,
// leaving the delivery to the broker, instead of waiting forever.
func TestShutdownWhileSourceUnreachableIsBounded(t *testing.T) {
	settling := make(chan struct{})
	src := oneDelivery{hangingDelivery{env: messaging.NewEnvelope("s", nil), settling: settling}}
	stop := start(t, []runtime.Route{{
		ID: "r", Receiver: src, Bindings: []runtime.Binding{{ID: "b", Sender: discard{}}},
	}}, runtime.Options{DLQ: newMemDLQ(), StopTimeout: 50 * time.Millisecond})
	select {
	case <-settling:
	case <-waitCtx(t).Done():
		t.Fatal("the delivery was never settled")
	}
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("shutdown still waits for an Ack the unreachable broker will never answer")
	}
}
