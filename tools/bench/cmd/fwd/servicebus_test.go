package main

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/sbio"
	"github.com/gobridge-oss/gobridge/transports/servicebus/sbemu"
)

// TestSBToSBForwardsEveryMessage runs the reference forwarder between two
// emulator queues with a small window and checks that every preloaded
// message reaches the target once and the source is left empty.
func TestSBToSBForwardsEveryMessage(t *testing.T) {
	if !sbemu.Available() {
		itest.Unavailable(t, "Service Bus emulator: %s cannot import proton", sbemu.Python)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	e, err := sbio.Start(ctx, "src", "dst")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const n = 400
	run := rand.Uint64()
	if err := sbio.Publish(ctx, e.ConnectionString(), "src", sbio.Load{Run: run, N: n, Size: 100}); err != nil {
		t.Fatal(err)
	}
	c := bench.NewCounter(run, n)
	sink, err := sbio.StartSink(e.ConnectionString(), "dst", c)
	if err != nil {
		t.Fatal(err)
	}
	fctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		done <- sbToSB(fctx, options{sbConn: e.ConnectionString(), src: "src", dst: "dst", window: 50}, func() { close(ready) })
	}()
	select {
	case <-c.Done():
	case err := <-done:
		t.Fatalf("forwarder stopped early: %v", err)
	case <-ctx.Done():
		t.Fatalf("%d of %d forwarded", c.Unique(), n)
	}
	<-ready
	// The forwarder completes a batch after the target took it: wait until
	// the source is empty before stopping it.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		counts, err := e.Counts(ctx, "src")
		if err != nil {
			t.Fatal(err)
		}
		if counts == (sbemu.Counts{}) {
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("source still holds %+v", counts)
		}
	}
	stop()
	<-done // a cancelled forwarder returns the context's error, as main expects
	if err := sink.Stop(); err != nil {
		t.Error(err)
	}
	if tl := c.Tally(); tl.Unique != n || tl.Duplicates != 0 || tl.Stray != 0 {
		t.Errorf("tally %+v, want %d unique, no duplicates or strays", tl, n)
	}
}

// TestSBOutboundCarriesWhatTheModifiersAsk checks the properties each
// -bridge-* modifier puts on a forwarded message.
func TestSBOutboundCarriesWhatTheModifiersAsk(t *testing.T) {
	enq := time.Date(2026, 12, 5, 6, 0, 0, 0, time.UTC)
	created := enq.Add(-time.Minute)
	in := &azservicebus.ReceivedMessage{MessageID: "m-1", Body: []byte("x"), EnqueuedTime: &enq}
	withCreation := &azservicebus.ReceivedMessage{MessageID: "m-2", Body: []byte("y"), EnqueuedTime: &enq,
		RawAMQPMessage: &azservicebus.AMQPAnnotatedMessage{Properties: &azservicebus.AMQPAnnotatedMessageProperties{CreationTime: &created}}}
	id1, id2 := "m-1", "m-2"
	for _, tc := range []struct {
		name string
		o    options
		in   *azservicebus.ReceivedMessage
		want azservicebus.AMQPAnnotatedMessageProperties
	}{
		{"props", options{bridgeProps: true}, in, azservicebus.AMQPAnnotatedMessageProperties{MessageID: id1, CorrelationID: id1, CreationTime: &enq}},
		{"ids", options{bridgeIDs: true}, in, azservicebus.AMQPAnnotatedMessageProperties{MessageID: id1, CreationTime: &enq}},
		{"headers", options{bridgeHeaders: true}, in, azservicebus.AMQPAnnotatedMessageProperties{CorrelationID: id1}},
		{"creation time kept", options{bridgeIDs: true}, withCreation, azservicebus.AMQPAnnotatedMessageProperties{MessageID: id2, CreationTime: &created}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := sbOutbound(tc.in, tc.o)
			if diff := cmp.Diff(&tc.want, got.Properties); diff != "" {
				t.Errorf("properties (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([][]byte{tc.in.Body}, got.Body.Data); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}
