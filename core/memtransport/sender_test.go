package memtransport_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestSendRecordsACopy(t *testing.T) {
	ctx := testCtx(t)
	s := memtransport.NewSender(memtransport.SenderOptions{})
	env := newEnv("orders.created", "body")
	want := env.Clone()
	if err := s.Send(ctx, ports.OutboundMessage{Envelope: env, Address: "q1"}); err != nil {
		t.Fatal(err)
	}
	env.SetHeader("app-tenant", "changed later")
	got := s.Sent()
	if len(got) != 1 || got[0].Address != "q1" || s.Count() != 1 {
		t.Fatalf("Sent = %+v, Count = %d", got, s.Count())
	}
	if diff := cmp.Diff(want, got[0].Envelope, cmp.AllowUnexported(messaging.Envelope{})); diff != "" {
		t.Errorf("recorded envelope (-want +got):\n%s", diff)
	}
}

func TestSendFailures(t *testing.T) {
	injected := fault.ErrThrottled.WithMessage("injected")
	s := memtransport.NewSender(memtransport.SenderOptions{
		Fail: func(m ports.OutboundMessage) error {
			if m.Address == "bad" {
				return injected
			}
			return nil
		},
	})
	ctx := testCtx(t)
	if err := s.Send(ctx, ports.OutboundMessage{Envelope: newEnv("s", "p"), Address: "bad"}); err != injected {
		t.Errorf("Send to failing address = %v, want the injected error itself", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	err := s.Send(cancelled, ports.OutboundMessage{Envelope: newEnv("s", "p")})
	if !errors.Is(err, context.Canceled) || !fault.IsRecoverable(err) {
		t.Errorf("Send with cancelled ctx = %v, want transient wrapping context.Canceled", err)
	}
	if err := s.Send(ctx, ports.OutboundMessage{}); fault.ClassOf(err) != fault.ClassRejected {
		t.Errorf("Send without envelope = %v, want a rejected error", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	err = s.Send(ctx, ports.OutboundMessage{Envelope: newEnv("s", "p")})
	if fault.CodeOf(err) != fault.CodeUnavailable || !fault.IsRecoverable(err) {
		t.Errorf("Send after Close = %v, want transient UNAVAILABLE", err)
	}
	if s.Count() != 0 || len(s.Sent()) != 0 {
		t.Errorf("failed sends were recorded: %d", s.Count())
	}
}

func TestWaitSentWithConcurrentSenders(t *testing.T) {
	for _, discard := range []bool{false, true} {
		t.Run(map[bool]string{false: "record", true: "discard"}[discard], func(t *testing.T) {
			ctx := testCtx(t)
			s := memtransport.NewSender(memtransport.SenderOptions{Discard: discard})
			const workers, each = 8, 25
			waited := make(chan error, 1)
			go func() { waited <- s.WaitSent(ctx, workers*each) }()
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					for range each {
						if err := s.Send(ctx, ports.OutboundMessage{Envelope: newEnv("s", "p")}); err != nil {
							t.Error(err)
						}
					}
				})
			}
			wg.Wait()
			if err := <-waited; err != nil {
				t.Fatal(err)
			}
			wantRecorded := workers * each
			if discard {
				wantRecorded = 0
			}
			if got := len(s.Sent()); got != wantRecorded || s.Count() != workers*each {
				t.Errorf("recorded %d, counted %d", got, s.Count())
			}
		})
	}
}

func TestDiscardSendDoesNotAllocate(t *testing.T) {
	s := memtransport.NewSender(memtransport.SenderOptions{Discard: true})
	ctx := context.Background()
	msg := ports.OutboundMessage{Envelope: newEnv("s", "p"), Address: "a"}
	if n := testing.AllocsPerRun(100, func() { _ = s.Send(ctx, msg) }); n != 0 {
		t.Errorf("Send in discard mode allocates %v times", n)
	}
}

func TestSendBatch(t *testing.T) {
	ctx := testCtx(t)
	b := memtransport.NewBatchSender(memtransport.SenderOptions{
		Fail: func(m ports.OutboundMessage) error {
			if string(m.Envelope.PayloadView()) == "poison" {
				return fault.ErrPayloadTooLarge
			}
			return nil
		},
	})
	msgs := []ports.OutboundMessage{
		{Envelope: newEnv("s", "a"), Address: "x"},
		{Envelope: newEnv("s", "poison"), Address: "x"},
		{Envelope: newEnv("s", "c"), Address: "y"},
	}
	res, err := b.SendBatch(ctx, msgs)
	if err != nil {
		t.Fatal(err)
	}
	want := []ports.BatchResult{{Index: 0}, {Index: 1, Err: fault.ErrPayloadTooLarge}, {Index: 2}}
	if diff := cmp.Diff(want, res, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if got := len(b.Sent()); got != 2 {
		t.Errorf("recorded %d messages, want 2", got)
	}
	res, err = b.SendBatch(ctx, nil)
	if err != nil || len(res) != 0 {
		t.Errorf("empty batch = %v, %v", res, err)
	}
	if diff := cmp.Diff([]int{3, 0}, b.BatchSizes()); diff != "" {
		t.Errorf("BatchSizes (-want +got):\n%s", diff)
	}
	_ = b.Close(ctx)
	res, err = b.SendBatch(ctx, msgs)
	if res != nil || fault.CodeOf(err) != fault.CodeUnavailable {
		t.Errorf("SendBatch after Close = %v, %v; want nil, UNAVAILABLE", res, err)
	}
}
