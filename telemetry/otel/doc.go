// Package otel plugs OpenTelemetry tracing into the bridge: a tracer
// plugin (type otel) for the telemetry.tracing block, which exports spans
// over OTLP (HTTP or gRPC) or prints them to stdout, and an adapter, New,
// that serves the runtime's tracer port from any OpenTelemetry
// TracerProvider, for embedders that bring their own.
//
// Trace context travels in the W3C traceparent and tracestate headers,
// read and written by OpenTelemetry's own propagator.
package otel
