package runtime_test

import (
	"context"
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

func TestDirectHoldMetrics(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(m ports.OutboundMessage) error {
		if m.Envelope.Subject == "bad" {
			return fault.ErrForbidden
		}
		return nil
	}})
	filter := procFunc{name: "filter", fn: func(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
		if env.Subject == "drop" {
			return fault.ErrMessageFiltered
		}
		return next(ctx, env)
	}}
	meter := telemetry.NewMemory()
	stop := start(t, []runtime.Route{{
		ID: "r", ReceiverID: "in", Receiver: recv, Processors: []ports.Processor{filter},
		Bindings: []runtime.Binding{{ID: "out", Sender: snd, Address: "a"}},
	}}, runtime.Options{DLQ: newMemDLQ(), Meter: meter})
	expired := messaging.NewEnvelope("late", nil)
	expired.ExpiresAt = time.Now().Add(-time.Minute)
	publish(t, recv, messaging.NewEnvelope("ok", nil), messaging.NewEnvelope("ok", nil), messaging.NewEnvelope("ok", nil),
		messaging.NewEnvelope("drop", nil), expired, messaging.NewEnvelope("bad", nil))
	if err := recv.WaitAcked(waitCtx(t), 6); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{
		"sent":             meter.Value("gobridge_route_messages_sent_total", "r", "out"),
		"filtered":         meter.Value("gobridge_route_messages_filtered_total", "r"),
		"expired":          meter.Value("gobridge_route_messages_expired_total", "r"),
		"errors FORBIDDEN": meter.Value("gobridge_route_errors_total", "r", "FORBIDDEN"),
		"errors EXPIRED":   meter.Value("gobridge_route_errors_total", "r", "MESSAGE_EXPIRED"),
		"errors FILTERED":  meter.Value("gobridge_route_errors_total", "r", "MESSAGE_FILTERED"),
		"latency count":    float64(meter.Count("gobridge_route_delivery_latency_seconds", "r")),
		"send count":       float64(meter.Count("gobridge_route_send_seconds", "r", "out")),
		"in flight":        meter.Value("gobridge_route_in_flight", "r"),
	}
	want := map[string]float64{
		"sent": 3, "filtered": 1, "expired": 1,
		"errors FORBIDDEN": 1, "errors EXPIRED": 1, "errors FILTERED": 0,
		"latency count": 3, // only the delivered messages
		"send count":    4, // the filtered and expired ones were never sent
		"in flight":     0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if lat := meter.Value("gobridge_route_delivery_latency_seconds", "r"); lat < 0 || lat > waitTimeout.Seconds()*3 {
		t.Errorf("latency sum %v s is implausible", lat)
	}
}

func TestErrorCodesOutsideCoreAreOther(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error {
		return fault.NewWithClass(fault.ClassPermanent, "PLUGIN_SPECIAL", "nope")
	}})
	meter := telemetry.NewMemory()
	stop := start(t, []runtime.Route{{
		ID: "r", ReceiverID: "in", Receiver: recv,
		Bindings: []runtime.Binding{{ID: "out", Sender: snd}},
		Policy:   runtime.Policy{OnPermanentFailure: runtime.Drop, OnExpired: runtime.Drop},
	}}, runtime.Options{Meter: meter})
	publish(t, recv, messaging.NewEnvelope("s", nil))
	if err := recv.WaitAcked(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	_ = stop()
	got := []float64{meter.Value("gobridge_route_errors_total", "r", "OTHER"), meter.Value("gobridge_route_errors_total", "r", "PLUGIN_SPECIAL")}
	if diff := cmp.Diff([]float64{1, 0}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestOutboxMetrics(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := memtransport.NewSender(memtransport.SenderOptions{})
	meter := telemetry.NewMemory()
	stop := start(t, []runtime.Route{outboxRoute(recv, snd, runtime.Policy{})},
		runtime.Options{DLQ: newMemDLQ(), Outbox: newFakeOutbox(), Meter: meter})
	envs := make([]*messaging.Envelope, 5)
	for i := range envs {
		envs[i] = messaging.NewEnvelope("s", nil)
	}
	publish(t, recv, envs...)
	if err := snd.WaitSent(waitCtx(t), 5); err != nil {
		t.Fatal(err)
	}
	running := []float64{
		meter.Value("gobridge_lease_role", "ob", "b", "standalone"),
		meter.Value("gobridge_lease_role", "ob", "b", "active"),
		meter.Value("gobridge_lease_role", "ob", "b", "standby"),
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{
		"sent":          meter.Value("gobridge_route_messages_sent_total", "ob", "b"),
		"delivered":     meter.Value("gobridge_outbox_delivered_total", "ob", "b"),
		"latency count": float64(meter.Count("gobridge_route_delivery_latency_seconds", "ob")),
		"role after":    meter.Value("gobridge_lease_role", "ob", "b", "standalone"),
		"depth read":    min(float64(meter.Count("gobridge_outbox_depth", "ob", "b")), 1),
		"lag read":      min(float64(meter.Count("gobridge_outbox_drain_lag_seconds", "ob", "b")), 1),
		"send timed":    min(float64(meter.Count("gobridge_route_send_seconds", "ob", "b")), 1),
	}
	want := map[string]float64{
		"sent": 5, "delivered": 5,
		"latency count": 5, // measured at delivery by the drainer, not at persist
		"role after":    0, "depth read": 1, "lag read": 1, "send timed": 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]float64{1, 0, 0}, running); diff != "" {
		t.Errorf("roles while draining (-want +got)\n%s", diff)
	}
}
