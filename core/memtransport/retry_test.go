package memtransport_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestRetryWaitsForTheClockAndPresentsTheOriginal(t *testing.T) {
	ctx := testCtx(t)
	fake := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	r := memtransport.NewReceiver(memtransport.Options{Clock: fake, CountRedeliveries: true})
	env := newEnv("orders.created", "body")
	want := env.Clone()
	publish(ctx, t, r, env)
	rn := startRun(t, r)

	d1 := rn.next(ctx, t)
	if n, ok := d1.(ports.RedeliveryCounter).RedeliveryCount(); n != 0 || !ok {
		t.Fatalf("first RedeliveryCount = %d, %v; want 0, true", n, ok)
	}
	d1.Envelope().SetHeader(messaging.HeaderRouteID, "route-1") // the runtime annotates
	reason := errors.New("downstream busy")
	if err := d1.Retry(ctx, 5*time.Second, reason); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	if s := r.Stats(); s.Delayed != 1 || s.Pending() != 1 || s.Retried != 1 {
		t.Fatalf("Stats after Retry = %+v", s)
	}
	fake.Advance(4 * time.Second)
	if s := r.Stats(); s.Delayed != 1 {
		t.Fatalf("message released before its delay: %+v", s)
	}
	fake.Advance(time.Second)

	d2 := rn.next(ctx, t)
	if d2 == d1 {
		t.Fatal("redelivery reused the first delivery object")
	}
	if diff := cmp.Diff(want, d2.Envelope(), cmp.AllowUnexported(messaging.Envelope{})); diff != "" {
		t.Errorf("redelivered envelope differs from the published one (-want +got):\n%s", diff)
	}
	if n, ok := d2.(ports.RedeliveryCounter).RedeliveryCount(); n != 1 || !ok {
		t.Errorf("second RedeliveryCount = %d, %v; want 1, true", n, ok)
	}
	wantRec := []memtransport.RetryRecord{{ID: env.ID, After: 5 * time.Second, Reason: reason}}
	if diff := cmp.Diff(wantRec, r.Retried(), cmpopts.EquateErrors()); diff != "" {
		t.Errorf("Retried (-want +got):\n%s", diff)
	}
	if err := d2.Ack(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestRetryWithoutDelayRequeuesAtOnce(t *testing.T) {
	ctx := testCtx(t)
	r := memtransport.NewReceiver(memtransport.Options{})
	env := newEnv("s", "p")
	publish(ctx, t, r, env)
	rn := startRun(t, r)
	if err := rn.next(ctx, t).Retry(ctx, -time.Second, nil); err != nil {
		t.Fatal(err)
	}
	d := rn.next(ctx, t)
	if d.Envelope().ID != env.ID {
		t.Fatalf("redelivered %s, want %s", d.Envelope().ID, env.ID)
	}
	if n, ok := d.(ports.RedeliveryCounter).RedeliveryCount(); ok {
		t.Errorf("RedeliveryCount = %d, true; want ok false without CountRedeliveries", n)
	}
	if got := r.Retried()[0].After; got != 0 {
		t.Errorf("recorded delay %v, want 0", got)
	}
}

func TestNoRetry(t *testing.T) {
	ctx := testCtx(t)
	r := memtransport.NewReceiver(memtransport.Options{NoRetry: true})
	if diff := cmp.Diff(ports.ReceiverCapabilities{RedeliversUnsettled: true}, r.Capabilities()); diff != "" {
		t.Errorf("Capabilities (-want +got):\n%s", diff)
	}
	publish(ctx, t, r, newEnv("s", "p"))
	d := startRun(t, r).next(ctx, t)
	err := d.Retry(ctx, time.Second, nil)
	if fault.CodeOf(err) != fault.CodeNotSupported {
		t.Fatalf("Retry = %v, want NOT_SUPPORTED", err)
	}
	if err := d.Ack(ctx); err != nil {
		t.Fatalf("Ack after refused Retry = %v; the delivery must still be unsettled", err)
	}
	if s := r.Stats(); s.Retried != 0 || s.Acked != 1 || s.DoubleSettlements != 0 {
		t.Errorf("Stats = %+v", s)
	}
}

func TestRequeueUnsettledRedeliversInOrder(t *testing.T) {
	ctx := testCtx(t)
	r := memtransport.NewReceiver(memtransport.Options{CountRedeliveries: true})
	a, b, c := newEnv("s", "a"), newEnv("s", "b"), newEnv("s", "c")
	publish(ctx, t, r, a, b, c)
	rn := startRun(t, r)
	da, db := rn.next(ctx, t), rn.next(ctx, t)
	rn.stop(t)
	if diff := cmp.Diff([]string{a.ID, b.ID}, r.Unsettled()); diff != "" {
		t.Fatalf("Unsettled (-want +got):\n%s", diff)
	}
	if n := r.RequeueUnsettled(); n != 2 {
		t.Fatalf("RequeueUnsettled = %d, want 2", n)
	}
	if err := da.Ack(ctx); !errors.Is(err, fault.ErrConnectionLost) {
		t.Errorf("Ack of stale delivery = %v, want CONNECTION_LOST", err)
	}
	if err := db.Retry(ctx, 0, nil); err == nil {
		t.Error("Retry of stale delivery succeeded")
	}

	rn = startRun(t, r)
	for _, tc := range []struct {
		env  *messaging.Envelope
		redo int
	}{{a, 1}, {b, 1}, {c, 0}} {
		d := rn.next(ctx, t)
		n, _ := d.(ports.RedeliveryCounter).RedeliveryCount()
		if d.Envelope().ID != tc.env.ID || n != tc.redo {
			t.Fatalf("got %s (count %d), want %s (count %d)", d.Envelope().PayloadView(), n, tc.env.PayloadView(), tc.redo)
		}
		if err := d.Ack(ctx); err != nil {
			t.Fatal(err)
		}
	}
	s := r.Stats()
	if s.StaleSettlements != 2 || s.DoubleSettlements != 0 || s.Acked != 3 || s.Pending() != 0 {
		t.Errorf("Stats = %+v", s)
	}
}

func TestRequeueUnsettledDrop(t *testing.T) {
	ctx := testCtx(t)
	r := memtransport.NewReceiver(memtransport.Options{Unsettled: memtransport.UnsettledDrop})
	if r.Capabilities().RedeliversUnsettled {
		t.Error("UnsettledDrop reports RedeliversUnsettled")
	}
	publish(ctx, t, r, newEnv("s", "p"))
	rn := startRun(t, r)
	rn.next(ctx, t)
	if err := r.WaitUnsettled(ctx, 1); err != nil {
		t.Fatal(err)
	}
	r.RequeueUnsettled()
	if s := r.Stats(); s.Dropped != 1 || s.Pending() != 0 {
		t.Errorf("Stats = %+v", s)
	}
}

func TestCloseReleasesDelayedMessages(t *testing.T) {
	ctx := testCtx(t)
	fake := clock.NewFake(time.Unix(0, 0))
	r := memtransport.NewReceiver(memtransport.Options{Clock: fake})
	publish(ctx, t, r, newEnv("s", "p"))
	rn := startRun(t, r)
	if err := rn.next(ctx, t).Retry(ctx, time.Hour, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Wait(ctx, func(s memtransport.Stats) bool { return s.Delayed == 0 }); err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.Queued != 1 {
		t.Errorf("Stats after Close = %+v, want the delayed message queued", s)
	}
}
