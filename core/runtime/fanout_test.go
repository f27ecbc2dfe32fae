package runtime_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// fanOutRoute wires a receiver to three senders; the second fails with
// failB2 on its first call.
func fanOutRoute(t *testing.T, failB2 error, dlq *memDLQ) (*clock.Fake, *memtransport.Receiver, []*memtransport.Sender) {
	t.Helper()
	fc := clock.NewFake(t0)
	recv := memtransport.NewReceiver(memtransport.Options{Clock: fc})
	var calls atomic.Int32
	snds := []*memtransport.Sender{
		memtransport.NewSender(memtransport.SenderOptions{}),
		memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error {
			if calls.Add(1) == 1 {
				return failB2
			}
			return nil
		}}),
		memtransport.NewSender(memtransport.SenderOptions{}),
	}
	start(t, []runtime.Route{{
		ID: "fan", Receiver: recv, DispatchMode: runtime.FanOut,
		Policy: runtime.Policy{Backoff: runtime.Backoff{Initial: time.Second, Jitter: ptr(0.0)}},
		Bindings: []runtime.Binding{
			{ID: "b1", Sender: snds[0], Address: "a1"},
			{ID: "b2", Sender: snds[1], Address: "a2"},
			{ID: "b3", Sender: snds[2], Address: "a3"},
		},
	}}, runtime.Options{Clock: fc, DLQ: dlq})
	return fc, recv, snds
}

func sentCounts(snds []*memtransport.Sender) []int {
	out := make([]int, len(snds))
	for i, s := range snds {
		out[i] = len(s.Sent())
	}
	return out
}

func TestFanOutAcksOnlyWhenEveryBindingAccepted(t *testing.T) {
	dlq := newMemDLQ()
	fc, recv, snds := fanOutRoute(t, fault.ErrConnectionLost, dlq)
	publish(t, recv, messaging.NewEnvelope("s", []byte("x")))

	if err := recv.WaitRetried(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if got := len(recv.Acked()); got != 0 {
		t.Fatalf("acked %d before every binding accepted", got)
	}
	if diff := cmp.Diff([]int{1, 0, 1}, sentCounts(snds)); diff != "" {
		t.Errorf("first attempt sends (-want +got):\n%s", diff)
	}

	fc.Advance(time.Second) // the retry delay elapses; the source redelivers
	if err := recv.WaitAcked(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	// The bindings that accepted the first time are not sent to again.
	if diff := cmp.Diff([]int{1, 1, 1}, sentCounts(snds)); diff != "" {
		t.Errorf("sends after redelivery (-want +got):\n%s", diff)
	}
	for i, s := range snds {
		if addr := s.Sent()[0].Address; addr != []string{"a1", "a2", "a3"}[i] {
			t.Errorf("sender %d got address %q", i, addr)
		}
	}
}

func TestFanOutPermanentFailureOfOneBinding(t *testing.T) {
	dlq := newMemDLQ()
	_, recv, snds := fanOutRoute(t, fault.ErrForbidden, dlq)
	publish(t, recv, messaging.NewEnvelope("s", []byte("x")))
	if err := recv.WaitAcked(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 0, 1}, sentCounts(snds)); diff != "" {
		t.Errorf("sends (-want +got):\n%s", diff)
	}
	es := dlq.all()
	if len(es) != 1 || es[0].BindingID != "b2" || es[0].Address != "a2" || es[0].Category != ports.DLQPermanent {
		t.Errorf("DLQ entries = %+v, want one permanent entry for b2 at a2", es)
	}
}

func TestPoisonNeedsBothAttemptsAndBudget(t *testing.T) {
	for _, counted := range []bool{false, true} {
		name := "bridge counts attempts"
		if counted {
			name = "source counts redeliveries"
		}
		t.Run(name, func(t *testing.T) {
			fc := clock.NewFake(t0)
			recv := memtransport.NewReceiver(memtransport.Options{Clock: fc, CountRedeliveries: counted})
			snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return fault.ErrBrokerBusy }})
			dlq := newMemDLQ()
			start(t, []runtime.Route{{
				ID: "p", Receiver: recv,
				Policy: runtime.Policy{
					MaxReplayAttempts: 3, ReplayBudget: 10 * time.Second,
					Backoff: runtime.Backoff{Initial: time.Second, Multiplier: 1, Jitter: ptr(0.0)},
				},
				Bindings: []runtime.Binding{{ID: "b", Sender: snd, Address: "q"}},
			}}, runtime.Options{Clock: fc, DLQ: dlq})
			publish(t, recv, messaging.NewEnvelope("s", []byte("x")))

			// Attempts 1..3 within the budget are retried, even the third.
			for n := 1; n <= 3; n++ {
				if err := recv.WaitRetried(waitCtx(t), n); err != nil {
					t.Fatalf("attempt %d: %v", n, err)
				}
				fc.Advance(time.Second)
			}
			if err := recv.WaitRetried(waitCtx(t), 4); err != nil {
				t.Fatal(err)
			}
			if len(dlq.all()) != 0 {
				t.Fatal("poisoned before the replay budget was spent")
			}
			// Once the budget is spent too, the next failure is poison.
			fc.Advance(10 * time.Second)
			es := dlq.wait(t, 1)
			if err := recv.WaitAcked(waitCtx(t), 1); err != nil {
				t.Fatal(err)
			}
			got := []any{es[0].Category, es[0].ErrorCode, es[0].Attempts, es[0].FirstFailureAt}
			want := []any{ports.DLQMaxRetries, "POISON_MESSAGE", 5, t0}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("poison entry (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDLQFailureHandsMessageBack(t *testing.T) {
	fc := clock.NewFake(t0)
	recv := memtransport.NewReceiver(memtransport.Options{Clock: fc})
	snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return fault.ErrForbidden }})
	dlq := newMemDLQ()
	dlq.setFail(fault.ErrUnavailable)
	start(t, []runtime.Route{{
		ID: "d", Receiver: recv, Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
		Policy: runtime.Policy{Backoff: runtime.Backoff{Jitter: ptr(0.0)}},
	}}, runtime.Options{Clock: fc, DLQ: dlq})
	publish(t, recv, messaging.NewEnvelope("s", []byte("x")))
	if err := recv.WaitRetried(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if n := len(recv.Acked()); n != 0 {
		t.Fatalf("acked %d messages whose DLQ write failed", n)
	}
	dlq.setFail(nil)
	fc.Advance(time.Second)
	dlq.wait(t, 1)
	if err := recv.WaitAcked(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
}
