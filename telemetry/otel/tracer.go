package otel

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// instrumentationName names the bridge's tracer in the spans it exports.
const instrumentationName = "github.com/gobridge-oss/gobridge"

// Tracer serves the runtime's tracer port (telemetry.Tracer) from an
// OpenTelemetry TracerProvider, with the W3C trace-context propagator.
type Tracer struct {
	tr   trace.Tracer
	prop propagation.TraceContext
}

// New returns a Tracer that opens spans with tp.
func New(tp trace.TracerProvider) *Tracer {
	return &Tracer{tr: tp.Tracer(instrumentationName)}
}

var _ telemetry.Tracer = (*Tracer)(nil)

// kindOnly holds, per telemetry.SpanKind, the start options of a span
// that has nothing but its kind, built once so that starting one
// allocates no options.
var kindOnly = [...][]trace.SpanStartOption{
	telemetry.KindInternal: {trace.WithSpanKind(trace.SpanKindInternal)},
	telemetry.KindConsumer: {trace.WithSpanKind(trace.SpanKindConsumer)},
	telemetry.KindProducer: {trace.WithSpanKind(trace.SpanKindProducer)},
}

// Start implements telemetry.Tracer. Attributes are set once the span is
// started, and only when it records: an unsampled span costs no
// attribute conversion.
func (t *Tracer) Start(ctx context.Context, name string, o telemetry.StartOptions) (context.Context, telemetry.Span) {
	k := o.Kind
	if int(k) >= len(kindOnly) {
		k = telemetry.KindInternal
	}
	opts := kindOnly[k]
	if len(o.Links) > 0 || o.NewRoot {
		opts = append(opts[:1:1], startExtras(o)...)
	}
	ctx, sp := t.tr.Start(ctx, name, opts...)
	if len(o.Attrs) > 0 && sp.IsRecording() {
		sp.SetAttributes(attributes(o.Attrs)...)
	}
	return ctx, span{sp}
}

// startExtras are the links and new-root option of o.
func startExtras(o telemetry.StartOptions) []trace.SpanStartOption {
	var out []trace.SpanStartOption
	for _, l := range o.Links {
		if sc := trace.SpanContextFromContext(l); sc.IsValid() {
			out = append(out, trace.WithLinks(trace.Link{SpanContext: sc}))
		}
	}
	if o.NewRoot {
		out = append(out, trace.WithNewRoot())
	}
	return out
}

// Extract implements telemetry.Tracer: ctx itself when h holds no valid
// traceparent.
func (t *Tracer) Extract(ctx context.Context, h map[string]any) context.Context {
	if h == nil {
		return ctx
	}
	return t.prop.Extract(ctx, carrier(h))
}

// Inject implements telemetry.Tracer. The trace headers h held are
// removed first, so that a producer's tracestate never rides along with
// the bridge's traceparent.
func (t *Tracer) Inject(ctx context.Context, h map[string]any) {
	for k := range h {
		if strings.EqualFold(k, messaging.HeaderTraceParent) || strings.EqualFold(k, messaging.HeaderTraceState) {
			delete(h, k)
		}
	}
	t.prop.Inject(ctx, carrier(h))
}

func attributes(as []telemetry.Attr) []attribute.KeyValue {
	out := make([]attribute.KeyValue, len(as))
	for i, a := range as {
		if a.IsInt {
			out[i] = attribute.Int64(a.Key, a.Int)
		} else {
			out[i] = attribute.String(a.Key, a.Str)
		}
	}
	return out
}

// span adapts an OpenTelemetry span to telemetry.Span.
type span struct{ sp trace.Span }

func (s span) End(err error) {
	if err != nil {
		s.sp.SetStatus(codes.Error, err.Error())
	}
	s.sp.End()
}

func (s span) SetAttributes(as ...telemetry.Attr) {
	if s.sp.IsRecording() {
		s.sp.SetAttributes(attributes(as)...)
	}
}

func (s span) AddEvent(name string, as ...telemetry.Attr) {
	if s.sp.IsRecording() {
		s.sp.AddEvent(name, trace.WithAttributes(attributes(as)...))
	}
}

func (s span) Recording() bool { return s.sp.IsRecording() }

// TraceID implements telemetry.TraceIDer: the trace ID of a sampled span,
// else "".
func (s span) TraceID() string {
	sc := s.sp.SpanContext()
	if !sc.IsSampled() {
		return ""
	}
	return sc.TraceID().String()
}

// carrier reads and writes trace headers in an envelope's header map.
// Transports hand header values over as strings or bytes; names are
// matched exactly first, then regardless of case (HTTP canonicalises
// them).
type carrier map[string]any

func (c carrier) Get(key string) string {
	if v, ok := c[key]; ok {
		return text(v)
	}
	for k, v := range c {
		if strings.EqualFold(k, key) {
			return text(v)
		}
	}
	return ""
}

func text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

func (c carrier) Set(key, value string) { c[key] = value }

func (c carrier) Keys() []string {
	out := make([]string, 0, len(c))
	for k := range c {
		out = append(out, k)
	}
	return out
}
