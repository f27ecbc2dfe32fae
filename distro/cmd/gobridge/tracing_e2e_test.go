package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/gobridge-oss/gobridge/core/httpapi"
	"github.com/gobridge-oss/gobridge/service"
	bridgeotel "github.com/gobridge-oss/gobridge/telemetry/otel"
)

// tracedBridge is one run of an MQTT → shared_outbox (SQLite) → AMQP
// 0-9-1 bridge traced into an in-memory exporter.
type tracedBridge struct {
	publisher trace.SpanContext // the MQTT producer's span
	amqpTrace string            // traceparent the AMQP consumer read
	spans     map[string]sdktrace.ReadOnlySpan
}

const tracingConfig = `
bridge: {id: tracing-%[1]s}
sessions:
  - id: mosquitto
    type: mqtt
    settings: {urls: ["mqtt://127.0.0.1:1883"], client_id: gobridge-tracing-%[1]s, session_expiry: 1m, clean_start: false}
  - id: rabbit
    type: amqp091
    settings:
      url: amqp://guest:guest@127.0.0.1:5672/
      topology:
        exchanges: [{name: tracing-%[1]s, type: topic}]
        queues: [{name: tracing-%[1]s}]
        bindings: [{exchange: tracing-%[1]s, queue: tracing-%[1]s, routing_key: "#"}]
receivers:
  - id: in
    type: mqtt
    session_id: mosquitto
    settings:
      subscriptions: [{topic: "tracing-%[1]s/#", qos: 1}]
senders:
  - id: out
    type: amqp091
    session_id: rabbit
    settings: {exchange: tracing-%[1]s}
bindings:
  - {id: to-rabbit, sender_id: out, address: orders.traced}
routes:
  - id: traced
    receiver_id: in
    delivery_mode: shared_outbox
    trust_bridge_headers: %[2]t
    bindings: [to-rabbit]
stores:
  outbox: {type: sqlite, settings: {path: outbox.db}}
  dlq: {type: sqlite, settings: {path: dlq.db}}
`

// runTracedBridge publishes one MQTT message carrying the producer's
// traceparent in a user property and returns what the AMQP consumer and
// the exporter saw.
func runTracedBridge(t *testing.T, trust bool) tracedBridge {
	t.Helper()
	brokerUp(t, "127.0.0.1:1883")
	brokerUp(t, "127.0.0.1:5672")
	suffix := fmt.Sprint(time.Now().UnixNano())
	exp := tracetest.NewInMemoryExporter()
	tp := bridgeotel.NewProvider(bridgeotel.Config{}.WithDefaults(), sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	svc, err := service.New(ctx, fmt.Appendf(nil, tracingConfig, suffix, trust), service.Settings{
		Factories: components(), Tracer: bridgeotel.New(tp), DataDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Run(runCtx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
	eventually(t, "the bridge is ready", func() bool { return svc.Readiness(ctx).Level == httpapi.LevelFull },
		func() string { return svc.Readiness(ctx).Detail })

	ch := rabbitChannel(t)
	t.Cleanup(func() {
		_, _ = ch.QueueDelete("tracing-"+suffix, false, false, false)
		_ = ch.ExchangeDelete("tracing-"+suffix, false, false)
	})
	deliveries, err := ch.Consume("tracing-"+suffix, "", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}

	// The producer traces its own publish and puts the context in a user
	// property, as an OpenTelemetry-instrumented MQTT client does.
	pctx, pub := tp.Tracer("producer").Start(context.Background(), "publish", trace.WithSpanKind(trace.SpanKindProducer))
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(pctx, carrier)
	pub.End()
	out, err := exec.CommandContext(ctx, "mosquitto_pub", "-V", "mqttv5", "-h", "127.0.0.1", "-q", "1",
		"-t", "tracing-"+suffix+"/orders", "-m", `{"id":1}`,
		"-D", "publish", "user-property", "traceparent", carrier.Get("traceparent")).CombinedOutput()
	if err != nil {
		t.Fatalf("mosquitto_pub: %v\n%s", err, out)
	}

	var got tracedBridge
	got.publisher = pub.SpanContext()
	select {
	case d := <-deliveries:
		got.amqpTrace, _ = d.Headers["traceparent"].(string)
	case <-ctx.Done():
		t.Fatal("the AMQP consumer received nothing")
	}
	eventually(t, "the drain span is exported", func() bool {
		got.spans = map[string]sdktrace.ReadOnlySpan{}
		for _, s := range exp.GetSpans().Snapshots() {
			got.spans[s.Name()] = s
		}
		return got.spans["gobridge.outbox.drain"] != nil
	}, func() string { return fmt.Sprint(len(got.spans), " spans") })
	return got
}

// traceparentOf is the traceparent of a sampled span context.
func traceparentOf(sc trace.SpanContext) string {
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"
}

// TestTracingOneTraceFromMQTTThroughOutboxToAMQP follows one message from
// an MQTT producer that trusts the bridge with its trace, through a
// shared_outbox route on SQLite, to an AMQP consumer: every span is in the
// producer's trace, and the consumer reads the send span's context.
func TestTracingOneTraceFromMQTTThroughOutboxToAMQP(t *testing.T) {
	got := runTracedBridge(t, true)
	s := got.spans
	for _, name := range []string{"gobridge.receive", "gobridge.dispatch", "gobridge.outbox.persist", "gobridge.settle", "gobridge.outbox.drain", "gobridge.send"} {
		if s[name] == nil {
			t.Fatalf("no %s span; have %v", name, keysOf(s))
		}
		if s[name].SpanContext().TraceID() != got.publisher.TraceID() {
			t.Errorf("%s is in trace %s, not the producer's %s", name, s[name].SpanContext().TraceID(), got.publisher.TraceID())
		}
	}
	parent := func(child string) trace.SpanID { return s[child].Parent().SpanID() }
	checks := []struct {
		child string
		want  trace.SpanID
	}{
		{"gobridge.receive", got.publisher.SpanID()},
		{"gobridge.dispatch", s["gobridge.receive"].SpanContext().SpanID()},
		{"gobridge.outbox.persist", s["gobridge.dispatch"].SpanContext().SpanID()},
		{"gobridge.outbox.drain", s["gobridge.outbox.persist"].SpanContext().SpanID()},
		{"gobridge.send", s["gobridge.outbox.drain"].SpanContext().SpanID()},
	}
	for _, c := range checks {
		if parent(c.child) != c.want {
			t.Errorf("%s's parent is %s, want %s", c.child, parent(c.child), c.want)
		}
	}
	if links := s["gobridge.outbox.drain"].Links(); len(links) != 1 || links[0].SpanContext.SpanID() != s["gobridge.outbox.persist"].SpanContext().SpanID() {
		t.Errorf("the drain span links to %v, want the persist span", links)
	}
	if !hasAttr(s["gobridge.send"].Attributes(), attribute.Int64("gobridge.attempt", 1)) {
		t.Errorf("the send span lacks gobridge.attempt=1: %v", s["gobridge.send"].Attributes())
	}
	if s["gobridge.receive"].SpanKind() != trace.SpanKindConsumer || s["gobridge.send"].SpanKind() != trace.SpanKindProducer {
		t.Errorf("kinds: receive %v, send %v", s["gobridge.receive"].SpanKind(), s["gobridge.send"].SpanKind())
	}
	if want := traceparentOf(s["gobridge.send"].SpanContext()); got.amqpTrace != want {
		t.Errorf("the AMQP consumer read traceparent %q, want the send span's %q", got.amqpTrace, want)
	}
}

// TestTracingLinksAnUntrustedProducer runs the same bridge without
// trust_bridge_headers: the producer still starts a trace, but the bridge
// starts its own and links to the producer's span instead of joining it.
func TestTracingLinksAnUntrustedProducer(t *testing.T) {
	got := runTracedBridge(t, false)
	recv := got.spans["gobridge.receive"]
	if recv == nil {
		t.Fatalf("no receive span; have %v", keysOf(got.spans))
	}
	if recv.Parent().IsValid() {
		t.Errorf("the receive span has parent %s; an untrusted producer must not be one", recv.Parent().SpanID())
	}
	if recv.SpanContext().TraceID() == got.publisher.TraceID() {
		t.Error("the bridge joined the untrusted producer's trace")
	}
	if links := recv.Links(); len(links) != 1 || links[0].SpanContext.SpanID() != got.publisher.SpanID() || links[0].SpanContext.TraceID() != got.publisher.TraceID() {
		t.Errorf("the receive span links to %v, want the producer's span", links)
	}
	send := got.spans["gobridge.send"]
	if send == nil || send.SpanContext().TraceID() != recv.SpanContext().TraceID() {
		t.Fatalf("the send span is not in the bridge's trace")
	}
	if want := traceparentOf(send.SpanContext()); got.amqpTrace != want {
		t.Errorf("the AMQP consumer read traceparent %q, want the send span's %q", got.amqpTrace, want)
	}
}

func hasAttr(attrs []attribute.KeyValue, want attribute.KeyValue) bool {
	for _, a := range attrs {
		if a == want {
			return true
		}
	}
	return false
}

func keysOf(m map[string]sdktrace.ReadOnlySpan) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
