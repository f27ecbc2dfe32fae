package runtime_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// fastDrain polls every millisecond so tests finish quickly.
var fastDrain = runtime.OutboxPolicy{Strategy: runtime.DrainStrategy{Type: runtime.AdaptiveBackoff, MinInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond}}

func outboxRoute(recv ports.Receiver, snd ports.Sender, pol runtime.Policy) runtime.Route {
	if pol.Outbox.Strategy.Type == "" && pol.Outbox.Interval == 0 {
		pol.Outbox.Strategy = fastDrain.Strategy
	}
	return runtime.Route{
		ID: "ob", ReceiverID: "mem", Receiver: recv, DeliveryMode: runtime.SharedOutbox, Policy: pol,
		Bindings: []runtime.Binding{{ID: "b", Sender: snd, Address: "target"}},
	}
}

func TestOutboxAcksOnPersistAndDrains(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	gate := newGateSender()
	ob := newFakeOutbox()
	start(t, []runtime.Route{outboxRoute(recv, gate, runtime.Policy{})}, runtime.Options{DLQ: newMemDLQ(), Outbox: ob})
	envs := make([]*messaging.Envelope, 20)
	for i := range envs {
		envs[i] = messaging.NewEnvelope("orders.created", fmt.Appendf(nil, "%d", i))
	}
	publish(t, recv, envs...)
	// Every delivery is acked although the target has accepted nothing yet.
	if err := recv.WaitAcked(waitCtx(t), len(envs)); err != nil {
		t.Fatal(err)
	}
	gate.waitEntered(t, 1)
	close(gate.gate)
	ctx := waitCtx(t)
	for ob.len() != 0 {
		select {
		case <-ob.changed:
		case <-ctx.Done():
			t.Fatalf("outbox still holds %d records", ob.len())
		}
	}
}

func TestOutboxRecordsKeepAddressOutOfSubject(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := memtransport.NewSender(memtransport.SenderOptions{})
	start(t, []runtime.Route{outboxRoute(recv, snd, runtime.Policy{})}, runtime.Options{DLQ: newMemDLQ(), Outbox: newFakeOutbox()})
	publish(t, recv, messaging.NewEnvelope("orders.created", []byte("x")))
	if err := snd.WaitSent(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	got := snd.Sent()[0]
	if diff := cmp.Diff([]string{"target", "orders.created", "x"}, []string{got.Address, got.Envelope.Subject, string(got.Envelope.Payload())}); diff != "" {
		t.Errorf("sent (-want +got):\n%s", diff)
	}
}

func TestOutboxFullPushesBack(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	gate := newGateSender()
	ob := newFakeOutbox()
	// One message at a time: the depth check and the persist are not one
	// atomic step, so concurrent ingress may overshoot the limit by the
	// number of messages in flight (documented).
	pol := runtime.Policy{MaxInFlight: 1, Outbox: runtime.OutboxPolicy{MaxDepth: 2, DepthCacheTTL: time.Nanosecond}, Backoff: runtime.Backoff{Initial: time.Hour}}
	defer close(gate.gate)
	start(t, []runtime.Route{outboxRoute(recv, gate, pol)}, runtime.Options{DLQ: newMemDLQ(), Outbox: ob})
	publish(t, recv, messaging.NewEnvelope("a", nil), messaging.NewEnvelope("b", nil), messaging.NewEnvelope("c", nil))
	if err := recv.WaitRetried(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	r := recv.Retried()[0]
	if !errors.Is(r.Reason, fault.ErrUnavailable) || ob.len() != 2 {
		t.Errorf("retry reason %v with %d records stored; want UNAVAILABLE (outbox full) with 2", r.Reason, ob.len())
	}
}

func TestOutboxPersistFailureIsRetried(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	ob := newFakeOutbox()
	ob.persist = fault.ErrTimeout
	pol := runtime.Policy{Backoff: runtime.Backoff{Initial: time.Hour}}
	start(t, []runtime.Route{outboxRoute(recv, discard{}, pol)}, runtime.Options{DLQ: newMemDLQ(), Outbox: ob})
	publish(t, recv, messaging.NewEnvelope("a", nil))
	if err := recv.WaitRetried(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if len(recv.Acked()) != 0 {
		t.Error("a message the outbox did not store was acked")
	}
}

func TestDrainerReplaysThenPoisons(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	var calls atomic.Int32
	snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error {
		calls.Add(1)
		return fault.ErrBrokerBusy
	}})
	dlq := newMemDLQ()
	meter := telemetry.NewMemory()
	pol := runtime.Policy{
		MaxReplayAttempts: 3, ReplayBudget: time.Nanosecond,
		Backoff: runtime.Backoff{Initial: time.Millisecond, Max: time.Millisecond},
	}
	start(t, []runtime.Route{outboxRoute(recv, snd, pol)}, runtime.Options{DLQ: dlq, Outbox: newFakeOutbox(), Meter: meter})
	publish(t, recv, messaging.NewEnvelope("s", []byte("p")))
	es := dlq.wait(t, 1)
	got := []any{es[0].Category, es[0].ErrorCode, es[0].Attempts, es[0].BindingID, es[0].Address, calls.Load()}
	want := []any{ports.DLQMaxRetries, "POISON_MESSAGE", 3, "b", "target", int32(3)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("poison entry (-want +got):\n%s", diff)
	}
	if v := meter.Value("gobridge_outbox_replayed_total", "ob", "b"); v != 2 {
		t.Errorf("replayed %v times, want 2", v)
	}
}

func TestDrainerDeadLettersPermanentFailure(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return fault.ErrForbidden }})
	dlq := newMemDLQ()
	ob := newFakeOutbox()
	start(t, []runtime.Route{outboxRoute(recv, snd, runtime.Policy{})}, runtime.Options{DLQ: dlq, Outbox: ob})
	publish(t, recv, messaging.NewEnvelope("s", nil))
	es := dlq.wait(t, 1)
	if es[0].Category != ports.DLQPermanent || es[0].ErrorCode != "FORBIDDEN" {
		t.Errorf("entry = %+v", es[0])
	}
	ctx := waitCtx(t)
	for ob.len() != 0 {
		select {
		case <-ob.changed:
		case <-ctx.Done():
			t.Fatal("dead-lettered record not completed")
		}
	}
}

func TestBatchSenderDrain(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := memtransport.NewBatchSender(memtransport.SenderOptions{})
	start(t, []runtime.Route{outboxRoute(recv, snd, runtime.Policy{})}, runtime.Options{DLQ: newMemDLQ(), Outbox: newFakeOutbox()})
	envs := make([]*messaging.Envelope, 50)
	for i := range envs {
		envs[i] = messaging.NewEnvelope("s", nil)
	}
	publish(t, recv, envs...)
	if err := snd.WaitSent(waitCtx(t), 50); err != nil {
		t.Fatal(err)
	}
	if len(snd.BatchSizes()) == 0 {
		t.Error("the drainer never used SendBatch")
	}
}
