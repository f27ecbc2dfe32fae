package httpsse

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestEmitRefusedAnswers503(t *testing.T) {
	_, base := startReceiver(t, ReceiverConfig{}, func(context.Context, ports.Delivery) error {
		return fault.ErrUnavailable.WithMessage("route is stopping")
	})
	a := do(t, post(t, base+"/publish", `{"subject":"s"}`))
	if a.Status != http.StatusServiceUnavailable || a.RetryAfter != "1" || a.Body.Error.Code != "UNAVAILABLE" {
		t.Errorf("answer %+v", a)
	}
}

// holding returns an emit that keeps every delivery, unsettled, on ds.
func holding(ds chan<- ports.Delivery) ports.EmitFunc {
	return func(_ context.Context, d ports.Delivery) error {
		ds <- d
		return nil
	}
}

func abandonedOf(t *testing.T, d ports.Delivery) <-chan struct{} {
	t.Helper()
	ab, ok := d.(ports.Abandoner)
	if !ok {
		t.Fatal("the delivery does not implement ports.Abandoner")
	}
	return ab.Abandoned()
}

func TestCallerGoneAbandonsDelivery(t *testing.T) {
	ctx := testContext(t)
	ds := make(chan ports.Delivery, 1)
	_, base := startReceiver(t, ReceiverConfig{}, holding(ds))
	rctx, cancel := context.WithCancel(ctx)
	req := post(t, base+"/publish", `{"subject":"s"}`).WithContext(rctx)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		errc <- err
	}()
	d := <-ds
	select {
	case <-abandonedOf(t, d):
		t.Fatal("abandoned while the caller waits")
	default:
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("client error %v, want cancellation", err)
	}
	select {
	case <-abandonedOf(t, d):
	case <-ctx.Done():
		t.Fatal("the delivery was not abandoned after the caller left")
	}
	// The runtime may still settle it; nobody listens, nothing blocks.
	_ = d.Ack(ctx)
	d.(ports.SettleObserver).Settled(ports.Settlement{Outcome: ports.SettledUnsettled})
}

func TestHoldTimeoutAbandons(t *testing.T) {
	ds := make(chan ports.Delivery, 1)
	_, base := startReceiver(t, ReceiverConfig{HoldTimeout: 50 * time.Millisecond, WriteTimeout: 5 * time.Second}, holding(ds))
	a := do(t, post(t, base+"/publish", `{"subject":"s"}`))
	if a.Status != http.StatusServiceUnavailable || a.Body.Status != "unsettled" || a.RetryAfter != "1" {
		t.Errorf("answer %+v", a)
	}
	select {
	case <-abandonedOf(t, <-ds):
	default:
		t.Error("the delivery was answered but not abandoned")
	}
}

// TestShutdownLetsInFlightFinish stops Run while a request waits for its
// outcome; the outcome arrives during the grace period and is answered.
func TestShutdownLetsInFlightFinish(t *testing.T) {
	ctx := testContext(t)
	r, err := NewReceiver(ReceiverConfig{Listen: "127.0.0.1:0", ShutdownTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ds := make(chan ports.Delivery, 1)
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx, holding(ds)) }()
	waitFor(ctx, t, "listening", func() bool { return r.Addr() != "" })
	base := "http://" + r.Addr()
	answers := goDo(post(t, base+"/publish", `{"subject":"s"}`))
	d := <-ds
	stop()
	waitFor(ctx, t, "the listener to close", func() bool {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			_ = resp.Body.Close()
		}
		return err != nil
	})
	select {
	case err := <-done:
		t.Fatalf("Run returned %v with a request in flight", err)
	default:
	}
	if err := d.Ack(ctx); err != nil {
		t.Fatal(err)
	}
	d.(ports.SettleObserver).Settled(ports.Settlement{Outcome: ports.SettledAcked, Terminal: true})
	if a := <-answers; a.Status != http.StatusOK {
		t.Errorf("in-flight request answered %d, want 200", a.Status)
	}
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	if r.Addr() != "" {
		t.Errorf("Addr %q after Run returned", r.Addr())
	}
}

// TestShutdownTimeoutAnswers503 stops Run while a request's outcome never
// comes: after ShutdownTimeout the request is abandoned and answered 503.
func TestShutdownTimeoutAnswers503(t *testing.T) {
	ctx := testContext(t)
	r, err := NewReceiver(ReceiverConfig{Listen: "127.0.0.1:0", ShutdownTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r.grace = 20 * time.Millisecond
	ds := make(chan ports.Delivery, 1)
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx, holding(ds)) }()
	waitFor(ctx, t, "listening", func() bool { return r.Addr() != "" })
	answers := goDo(post(t, "http://"+r.Addr()+"/publish", `{"subject":"s"}`))
	d := <-ds
	stop()
	if a := <-answers; a.Status != http.StatusServiceUnavailable || a.Body.Status != "unsettled" {
		t.Errorf("answer %+v", a)
	}
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	select {
	case <-abandonedOf(t, d):
	default:
		t.Error("delivery not abandoned")
	}
}

func TestRunRefusesSecondRunAndBusyPort(t *testing.T) {
	r, _ := startReceiver(t, ReceiverConfig{}, holding(make(chan ports.Delivery)))
	if err := r.Run(t.Context(), holding(nil)); err == nil {
		t.Error("a second concurrent Run succeeded")
	}
	other, err := NewReceiver(ReceiverConfig{Listen: r.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Run(t.Context(), holding(nil)); fault.CodeOf(err) != fault.CodeUnavailable {
		t.Errorf("Run on a busy port = %v, want UNAVAILABLE", err)
	}
}

func TestDeliverySettlesOnce(t *testing.T) {
	d := newDelivery(nil, t.Context())
	if err := d.Ack(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := d.Retry(t.Context(), time.Second, nil); fault.CodeOf(err) != fault.CodeProtocolError {
		t.Errorf("second settlement = %v, want PROTOCOL_ERROR", err)
	}
	if err := d.Extend(t.Context(), time.Now()); fault.CodeOf(err) != fault.CodeNotSupported {
		t.Errorf("Extend = %v, want NOT_SUPPORTED", err)
	}
	if got := d.fallback(); got.Outcome != ports.SettledAcked {
		t.Errorf("fallback %+v", got)
	}
}
