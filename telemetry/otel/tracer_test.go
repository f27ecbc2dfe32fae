package otel_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/gobridge-oss/gobridge/core/telemetry"
	bridgeotel "github.com/gobridge-oss/gobridge/telemetry/otel"
)

const (
	upTrace  = "0af7651916cd43dd8448eb211c80319c"
	upSpan   = "b7ad6b7169203331"
	upParent = "00-" + upTrace + "-" + upSpan + "-01"
)

func newTracer(t *testing.T, ratio float64) (*bridgeotel.Tracer, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := bridgeotel.NewProvider(bridgeotel.Config{SamplingRatio: &ratio}, sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return bridgeotel.New(tp), exp
}

func TestExtractReadsTransportHeaderShapes(t *testing.T) {
	tr, _ := newTracer(t, 1)
	tests := []struct {
		name    string
		headers map[string]any
		want    string // trace ID found, "" for none
	}{
		{"string value", map[string]any{"traceparent": upParent}, upTrace},
		{"bytes value (AMQP, MQTT)", map[string]any{"traceparent": []byte(upParent)}, upTrace},
		{"canonical HTTP name", map[string]any{"Traceparent": upParent}, upTrace},
		{"absent", map[string]any{"other": "x"}, ""},
		{"malformed", map[string]any{"traceparent": "00-zz-yy-01"}, ""},
		{"nil map", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			got := tr.Extract(ctx, tc.headers)
			sc := trace.SpanContextFromContext(got)
			if tc.want == "" {
				if got != ctx {
					t.Errorf("Extract returned a new context for headers without a trace")
				}
				return
			}
			if sc.TraceID().String() != tc.want || !sc.IsRemote() {
				t.Errorf("extracted %v (remote %v), want trace %s", sc.TraceID(), sc.IsRemote(), tc.want)
			}
		})
	}
}

func TestInjectReplacesTheProducersTraceHeaders(t *testing.T) {
	tr, _ := newTracer(t, 1)
	ctx, sp := tr.Start(context.Background(), "gobridge.send", telemetry.StartOptions{Kind: telemetry.KindProducer})
	defer sp.End(nil)
	h := map[string]any{"Traceparent": upParent, "tracestate": "vendor=x", "keep": "v"}
	tr.Inject(ctx, h)
	sc := trace.SpanContextFromContext(ctx)
	want := map[string]any{"traceparent": "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01", "keep": "v"}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("headers after Inject (-want +got):\n%s", diff)
	}
}

func TestStartMapsTheSpanOptions(t *testing.T) {
	tr, exp := newTracer(t, 1)
	remote := tr.Extract(context.Background(), map[string]any{"traceparent": upParent})
	ctx, sp := tr.Start(remote, "gobridge.receive", telemetry.StartOptions{
		Kind: telemetry.KindConsumer, NewRoot: true, Links: []context.Context{remote, context.Background()},
		Attrs: []telemetry.Attr{telemetry.String("gobridge.route", "r"), telemetry.Int("gobridge.attempt", 2)},
	})
	if !sp.Recording() {
		t.Fatal("a span sampled at ratio 1 is not recording")
	}
	_, child := tr.Start(ctx, "gobridge.send", telemetry.StartOptions{Kind: telemetry.KindProducer})
	child.AddEvent("gobridge.retry", telemetry.Int("gobridge.attempt", 1))
	child.SetAttributes(telemetry.String("gobridge.fault.code", "UNAVAILABLE"))
	child.End(errors.New("target down"))
	sp.End(nil)
	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("exported %d spans, want 2", len(spans))
	}
	send, recv := spans[0], spans[1]
	if recv.SpanKind != trace.SpanKindConsumer || send.SpanKind != trace.SpanKindProducer {
		t.Errorf("kinds: receive %v, send %v", recv.SpanKind, send.SpanKind)
	}
	if recv.Parent.IsValid() || recv.SpanContext.TraceID().String() == upTrace {
		t.Error("a new root continued the remote trace")
	}
	if len(recv.Links) != 1 || recv.Links[0].SpanContext.TraceID().String() != upTrace {
		t.Errorf("links = %v, want the remote span only", recv.Links)
	}
	wantAttrs := []attribute.KeyValue{attribute.String("gobridge.route", "r"), attribute.Int64("gobridge.attempt", 2)}
	if diff := cmp.Diff(wantAttrs, recv.Attributes, cmp.Comparer(func(a, b attribute.Value) bool { return a == b })); diff != "" {
		t.Errorf("receive attributes (-want +got):\n%s", diff)
	}
	if send.Parent.SpanID() != recv.SpanContext.SpanID() {
		t.Error("the send span is not the receive span's child")
	}
	if send.Status.Code != codes.Error || send.Status.Description != "target down" {
		t.Errorf("send status = %+v", send.Status)
	}
	if len(send.Events) != 1 || send.Events[0].Name != "gobridge.retry" {
		t.Errorf("send events = %v", send.Events)
	}
	if id := sp.(telemetry.TraceIDer).TraceID(); id != recv.SpanContext.TraceID().String() {
		t.Errorf("TraceID = %q", id)
	}
}

func TestRatioZeroSamplesNothingButStillPropagates(t *testing.T) {
	tr, exp := newTracer(t, 0)
	ctx, sp := tr.Start(context.Background(), "gobridge.receive", telemetry.StartOptions{Kind: telemetry.KindConsumer})
	if sp.Recording() {
		t.Error("a span at ratio 0 records")
	}
	if id := sp.(telemetry.TraceIDer).TraceID(); id != "" {
		t.Errorf("an unsampled span offers trace ID %q for exemplars", id)
	}
	h := map[string]any{}
	tr.Inject(ctx, h)
	if v, _ := h["traceparent"].(string); len(v) != 55 || v[53:] != "00" {
		t.Errorf("traceparent = %q, want an unsampled context", v)
	}
	sp.End(nil)
	// A trusted upstream's sampled decision is kept at ratio 0.
	up := tr.Extract(context.Background(), map[string]any{"traceparent": upParent})
	_, child := tr.Start(up, "gobridge.receive", telemetry.StartOptions{})
	if !child.Recording() {
		t.Error("a child of a sampled upstream is not recorded at ratio 0")
	}
	child.End(nil)
	if n := len(exp.GetSpans()); n != 1 {
		t.Errorf("exported %d spans, want the upstream-sampled one only", n)
	}
}
