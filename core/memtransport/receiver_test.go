package memtransport_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestPublishRunAckInOrder(t *testing.T) {
	ctx := testCtx(t)
	r := memtransport.NewReceiver(memtransport.Options{})
	envs := []*messaging.Envelope{newEnv("a", "1"), newEnv("b", "2"), newEnv("c", "3")}
	publish(ctx, t, r, envs...)
	if got := r.Pending(); got != 3 {
		t.Fatalf("Pending before Run = %d, want 3", got)
	}
	rn := startRun(t, r)
	var want []string
	for _, env := range envs {
		d := rn.next(ctx, t)
		if diff := cmp.Diff(env.ID, d.Envelope().ID); diff != "" {
			t.Fatalf("delivery order (-want +got):\n%s", diff)
		}
		if err := d.Ack(ctx); err != nil {
			t.Fatalf("Ack: %v", err)
		}
		want = append(want, env.ID)
	}
	if err := r.WaitAcked(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, r.Acked()); diff != "" {
		t.Errorf("Acked (-want +got):\n%s", diff)
	}
	s := r.Stats()
	if diff := cmp.Diff(memtransport.Stats{Published: 3, Emitted: 3, Acked: 3}, s); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

func TestDoubleSettlementIsCounted(t *testing.T) {
	ctx := testCtx(t)
	r := memtransport.NewReceiver(memtransport.Options{})
	publish(ctx, t, r, newEnv("s", "p"))
	d := startRun(t, r).next(ctx, t)
	if err := d.Ack(ctx); err != nil {
		t.Fatalf("first Ack: %v", err)
	}
	if err := d.Ack(ctx); !errors.Is(err, fault.ErrProtocolError) {
		t.Errorf("second Ack = %v, want PROTOCOL_ERROR", err)
	}
	if err := d.Retry(ctx, 0, nil); !errors.Is(err, fault.ErrProtocolError) {
		t.Errorf("Retry after Ack = %v, want PROTOCOL_ERROR", err)
	}
	if err := d.Extend(ctx, time.Now()); !errors.Is(err, fault.ErrProtocolError) {
		t.Errorf("Extend after Ack = %v, want PROTOCOL_ERROR", err)
	}
	if got := r.DoubleSettlements(); got != 2 {
		t.Errorf("DoubleSettlements = %d, want 2", got)
	}
	if got := r.Stats().Acked; got != 1 {
		t.Errorf("Acked = %d, want 1", got)
	}
}

func TestExtendIsRecorded(t *testing.T) {
	ctx := testCtx(t)
	r := memtransport.NewReceiver(memtransport.Options{})
	env := newEnv("s", "p")
	publish(ctx, t, r, env)
	d := startRun(t, r).next(ctx, t)
	until := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := d.Extend(ctx, until); err != nil {
		t.Fatalf("Extend: %v", err)
	}
	want := []memtransport.ExtendRecord{{ID: env.ID, Until: until}}
	if diff := cmp.Diff(want, r.Extended()); diff != "" {
		t.Errorf("Extended (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{env.ID}, r.Unsettled()); diff != "" {
		t.Errorf("Unsettled after Extend (-want +got):\n%s", diff)
	}
}

func TestEmitErrorPutsMessageBack(t *testing.T) {
	ctx := testCtx(t)
	r := memtransport.NewReceiver(memtransport.Options{CountRedeliveries: true})
	first, second := newEnv("s", "first"), newEnv("s", "second")
	publish(ctx, t, r, first, second)

	var refused ports.Delivery
	got := make(chan ports.Delivery, 2)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- r.Run(runCtx, func(_ context.Context, d ports.Delivery) error {
			if refused == nil {
				refused = d
				return errors.New("route busy")
			}
			got <- d
			return nil
		})
	}()
	for _, want := range []*messaging.Envelope{first, second} {
		d := <-got
		if d.Envelope().ID != want.ID {
			t.Fatalf("got %q, want %q: a refused message must keep its place", d.Envelope().Payload(), want.Payload())
		}
		if n, _ := d.(ports.RedeliveryCounter).RedeliveryCount(); n != 0 {
			t.Errorf("redelivery count after refusal = %d, want 0", n)
		}
		if err := d.Ack(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	if err := refused.Ack(ctx); !errors.Is(err, fault.ErrConnectionLost) {
		t.Errorf("Ack of refused delivery = %v, want CONNECTION_LOST", err)
	}
	s := r.Stats()
	if s.Refused != 1 || s.StaleSettlements != 1 || s.Acked != 2 || s.Pending() != 0 {
		t.Errorf("Stats = %+v", s)
	}
}

func TestRunReturnsWhenCancelledOrClosed(t *testing.T) {
	r := memtransport.NewReceiver(memtransport.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	emit := func(context.Context, ports.Delivery) error { return nil }
	go func() { done <- r.Run(ctx, emit) }()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel = %v, want nil", err)
	}
	go func() { done <- r.Run(context.Background(), emit) }()
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run after Close = %v, want nil", err)
	}
	err := r.Publish(context.Background(), newEnv("s", "p"))
	if !errors.Is(err, fault.ErrUnavailable) || !fault.IsRecoverable(err) {
		t.Errorf("Publish after Close = %v, want transient UNAVAILABLE", err)
	}
}

func TestPublishBlocksWhileFull(t *testing.T) {
	ctx := testCtx(t)
	r := memtransport.NewReceiver(memtransport.Options{QueueSize: 1})
	publish(ctx, t, r, newEnv("s", "1"))

	short, cancel := context.WithCancel(ctx)
	cancel()
	err := r.Publish(short, newEnv("s", "2"))
	if !errors.Is(err, context.Canceled) || !fault.IsRecoverable(err) {
		t.Fatalf("Publish on full queue with ended ctx = %v, want transient wrapping context.Canceled", err)
	}

	blocked := make(chan error, 1)
	go func() { blocked <- r.Publish(ctx, newEnv("s", "3")) }()
	rn := startRun(t, r)
	for _, want := range []string{"1", "3"} {
		d := rn.next(ctx, t)
		if got := string(d.Envelope().PayloadView()); got != want {
			t.Fatalf("payload %q, want %q", got, want)
		}
		if err := d.Ack(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-blocked; err != nil {
		t.Fatalf("blocked Publish = %v", err)
	}
}

func TestConcurrentPublishersAndRuns(t *testing.T) {
	ctx := testCtx(t)
	r := memtransport.NewReceiver(memtransport.Options{QueueSize: 4})
	const producers, each = 4, 50
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range each {
				if err := r.Publish(ctx, newEnv("s", fmt.Sprintf("%d-%d", p, i))); err != nil {
					t.Errorf("Publish: %v", err)
					return
				}
			}
		})
	}
	runCtx, cancel := context.WithCancel(ctx)
	var runs sync.WaitGroup
	for range 3 {
		runs.Go(func() {
			_ = r.Run(runCtx, func(ctx context.Context, d ports.Delivery) error {
				return d.Ack(ctx)
			})
		})
	}
	wg.Wait()
	if err := r.WaitAcked(ctx, producers*each); err != nil {
		t.Fatalf("WaitAcked: %v (stats %+v)", err, r.Stats())
	}
	if err := r.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	runs.Wait()
	seen := map[string]bool{}
	for _, id := range r.Acked() {
		if seen[id] {
			t.Fatalf("message %s acked twice", id)
		}
		seen[id] = true
	}
	if s := r.Stats(); s.Acked != producers*each || s.DoubleSettlements != 0 {
		t.Errorf("Stats = %+v", s)
	}
}
