package tenant_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/processors/tenant"
)

// heldSender blocks each send until released.
type heldSender struct {
	entered chan struct{}
	release chan struct{}
}

func (h heldSender) Send(ctx context.Context, _ ports.OutboundMessage) error {
	h.entered <- struct{}{}
	select {
	case <-h.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestInFlightReleasedOnSettlement runs the processor inside the real
// runtime: the tenant's in-flight count stays up while the target holds the
// message and drops back only after the delivery is acknowledged.
func TestInFlightReleasedOnSettlement(t *testing.T) {
	tracker := tenant.NewMemoryTracker()
	proc, err := tenant.New(tenant.Config{}, tenant.WithUsageTracker(tracker))
	if err != nil {
		t.Fatal(err)
	}
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := heldSender{entered: make(chan struct{}, 1), release: make(chan struct{})}
	rt, err := runtime.New([]runtime.Route{{
		ID: "t", Receiver: recv, Processors: []ports.Processor{proc},
		Policy:   runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
		Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
	}}, runtime.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- rt.Run(ctx) }()
	defer func() { cancel(); <-done }()

	env := messaging.NewEnvelope("s", nil)
	env.Headers["x-tenant-id"] = "acme"
	if err := recv.Publish(ctx, env); err != nil {
		t.Fatal(err)
	}
	<-snd.entered
	inSend, _ := tracker.Usage(ctx, "acme")
	close(snd.release)
	if err := recv.WaitAcked(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// The hook runs right after the ack, on the worker: wait for it.
	var after tenant.Usage
	for {
		after, _ = tracker.Usage(ctx, "acme")
		if after.InFlight == 0 || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Millisecond):
		}
	}
	got := []tenant.Usage{inSend, after}
	want := []tenant.Usage{{InFlight: 1}, {InFlight: 0, Processed: 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("usage during and after the send (-want +got):\n%s", diff)
	}
}
