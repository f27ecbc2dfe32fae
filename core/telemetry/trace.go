package telemetry

import "context"

// Tracer opens trace spans around the work the runtime does on a message,
// and moves trace context in and out of envelope headers.
//
// Core never parses the W3C traceparent itself: Extract and Inject belong
// to the tracer, so that the implementation behind the port (the
// OpenTelemetry adapter in the distro) applies the reference propagator,
// and a build without tracing pays nothing for header parsing.
type Tracer interface {
	// Start opens a span named name as a child of the span active in ctx
	// (unless o.NewRoot) and returns a context carrying it.
	Start(ctx context.Context, name string, o StartOptions) (context.Context, Span)
	// Extract returns ctx with the remote span context found in h (the
	// traceparent and tracestate headers) as its parent, or ctx itself
	// when h carries none.
	Extract(ctx context.Context, h map[string]any) context.Context
	// Inject writes the span context active in ctx into h, replacing any
	// traceparent and tracestate found there.
	Inject(ctx context.Context, h map[string]any)
}

// SpanKind says what role a span plays in a message's journey.
type SpanKind uint8

// The kinds of spans the runtime opens.
const (
	// KindInternal is work inside the bridge (processors, dispatch,
	// settlement, store writes).
	KindInternal SpanKind = iota
	// KindConsumer is the receipt of a message from a source.
	KindConsumer
	// KindProducer is the sending of a message to a target.
	KindProducer
)

// StartOptions describes a span to open.
type StartOptions struct {
	Kind  SpanKind
	Attrs []Attr
	// Links are contexts whose active span context the new span links to
	// (a causal relation that is not parentage). A context carrying no
	// valid span context is ignored.
	Links []context.Context
	// NewRoot starts a new trace instead of continuing the one in ctx.
	NewRoot bool
}

// Span is an open trace span.
type Span interface {
	// End closes the span; err is nil on success, else the span is
	// marked as failed with err's message.
	End(err error)
	// SetAttributes adds or replaces attributes.
	SetAttributes(attrs ...Attr)
	// AddEvent records a point in time within the span, such as a retry.
	AddEvent(name string, attrs ...Attr)
	// Recording reports whether what is set on the span is kept, so that
	// callers can skip building attributes for a span that is not sampled.
	Recording() bool
}

// Attr is one span attribute: a key and a string or integer value.
type Attr struct {
	Key   string
	Str   string
	Int   int64
	IsInt bool
}

// String returns a string attribute.
func String(key, v string) Attr { return Attr{Key: key, Str: v} }

// Int returns an integer attribute.
func Int(key string, v int64) Attr { return Attr{Key: key, Int: v, IsInt: true} }

// TraceIDer is implemented by spans that can name their trace, for
// exemplars. TraceID returns "" when the span is not sampled.
type TraceIDer interface{ TraceID() string }

// TraceIDOf returns the trace ID of s when s is sampled and can name it,
// else "".
func TraceIDOf(s Span) string {
	if t, ok := s.(TraceIDer); ok {
		return t.TraceID()
	}
	return ""
}

// NoopTracer returns a tracer whose spans do nothing.
func NoopTracer() Tracer { return noopTracer{} }

// IsNoopTracer reports whether t is the tracer returned by NoopTracer, so
// that callers can skip building span options.
func IsNoopTracer(t Tracer) bool {
	_, ok := t.(noopTracer)
	return ok
}

type noopTracer struct{}

func (noopTracer) Start(ctx context.Context, _ string, _ StartOptions) (context.Context, Span) {
	return ctx, noopSpan{}
}

func (noopTracer) Extract(ctx context.Context, _ map[string]any) context.Context { return ctx }

func (noopTracer) Inject(context.Context, map[string]any) {}

type noopSpan struct{}

func (noopSpan) End(error)                {}
func (noopSpan) SetAttributes(...Attr)    {}
func (noopSpan) AddEvent(string, ...Attr) {}
func (noopSpan) Recording() bool          { return false }
