package sqs

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// blockingDeletes answers DeleteMessageBatch only once gate is closed,
// counting the entries it was asked to delete.
func blockingDeletes(gate <-chan struct{}, entriesSeen *atomic.Int64) stubOp {
	return func(req map[string]any) (int, any) {
		es := entries(req)
		entriesSeen.Add(int64(len(es)))
		<-gate
		ok := make([]map[string]any, len(es))
		for i, e := range es {
			ok[i] = map[string]any{"Id": e["Id"]}
		}
		return 200, map[string]any{"Successful": ok}
	}
}

// ackAll acks ds concurrently and returns a channel that yields each
// Ack's error.
func ackAll(ctx context.Context, ds []ports.Delivery) <-chan error {
	errs := make(chan error, len(ds))
	for _, d := range ds {
		go func() { errs <- d.Ack(ctx) }()
	}
	return errs
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

// An acked message whose delete is under way no longer counts against
// max_in_flight: the pollers receive the next batch while the delete
// call is still outstanding, and each Ack still returns the delete's
// outcome. Pending deletes are bounded separately, by max_in_flight
// too: an Ack past that bound waits, and keeps its slot meanwhile.
func TestPendingDeletesFreeInFlightSlotsUpToABound(t *testing.T) {
	var asked, seq, deleting atomic.Int64
	gate := make(chan struct{})
	var openGate sync.Once
	open := func() { openGate.Do(func() { close(gate) }) }
	stub := newStub(t, map[string]stubOp{
		"ReceiveMessage":     stubMessages("1", &asked, &seq),
		"GetQueueAttributes": visibility30,
		"DeleteMessageBatch": blockingDeletes(gate, &deleting),
	})
	r, err := NewReceiver(stub.client(), ReceiverConfig{Queue: stubQueue, WaitTime: time.Second}, WithMaxInFlight(10))
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan ports.Delivery, 100)
	runReceiver(t, r, collect(ch))
	t.Cleanup(open) // runs first: the stub server waits for its handlers
	take := func(n int) []ports.Delivery {
		var ds []ports.Delivery
		for range n {
			ds = append(ds, next(t, ch))
		}
		return ds
	}
	first := take(10)
	firstAcks := ackAll(t.Context(), first)
	waitFor(t, "the first delete call", func() bool { return deleting.Load() == 10 })
	// The delete hangs, yet ten more come: the acked ten gave their
	// slots back.
	second := take(10)
	select {
	case err := <-firstAcks:
		t.Fatalf("an Ack returned (%v) before its delete answered", err)
	default:
	}
	// Ten deletes are pending, the bound: these acks wait for room and
	// hold their slots, so nothing more is received.
	secondAcks := ackAll(t.Context(), second)
	select {
	case d := <-ch:
		t.Fatalf("delivery %s arrived with 10 deletes pending and 10 messages held", d.Envelope().ID)
	case <-time.After(300 * time.Millisecond):
	}
	if n := asked.Load(); n != 20 {
		t.Errorf("receives asked for %d messages in all, want 20", n)
	}
	if n := deleting.Load(); n != 10 {
		t.Errorf("%d entries reached DeleteMessageBatch, want 10 (the second ten wait for room)", n)
	}
	open()
	for range 20 {
		select {
		case err := <-firstAcks:
			if err != nil {
				t.Errorf("Ack: %v", err)
			}
		case err := <-secondAcks:
			if err != nil {
				t.Errorf("Ack: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Ack did not return after the deletes answered")
		}
	}
	take(1) // slots came back: receiving goes on
}

// An Ack that waits for room among the pending deletes gives up when
// its context ends, and its message keeps its slot until the runtime
// settles it some other way.
func TestAckWaitingForDeleteRoomHonoursContext(t *testing.T) {
	var asked, seq, deleting atomic.Int64
	gate := make(chan struct{})
	var openGate sync.Once
	open := func() { openGate.Do(func() { close(gate) }) }
	stub := newStub(t, map[string]stubOp{
		"ReceiveMessage":     stubMessages("1", &asked, &seq),
		"GetQueueAttributes": visibility30,
		"DeleteMessageBatch": blockingDeletes(gate, &deleting),
	})
	r, err := NewReceiver(stub.client(), ReceiverConfig{Queue: stubQueue, WaitTime: time.Second, MaxMessages: 1}, WithMaxInFlight(1))
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan ports.Delivery, 10)
	runReceiver(t, r, collect(ch))
	t.Cleanup(open) // runs first: the stub server waits for its handlers
	a := next(t, ch)
	aAck := ackAll(t.Context(), []ports.Delivery{a})
	b := next(t, ch)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := b.Ack(ctx); err == nil {
		t.Fatal("Ack returned nil while no delete could be queued")
	}
	if n := deleting.Load(); n > 1 {
		t.Errorf("%d entries reached DeleteMessageBatch, want 1", n)
	}
	select {
	case d := <-ch:
		t.Fatalf("delivery %s arrived while the unacked one holds the only slot", d.Envelope().ID)
	case <-time.After(100 * time.Millisecond):
	}
	open()
	if err := <-aAck; err != nil {
		t.Errorf("Ack: %v", err)
	}
	b.(ports.SettleObserver).Settled(ports.Settlement{})
	next(t, ch)
}
