package otel

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/gobridge-oss/gobridge/core/registry"
)

// Type is the plugin's type name in telemetry.tracing.type.
const Type = "otel"

// Factories returns the plugin's factory, for a distro's component list.
func Factories() []registry.Factory {
	return []registry.Factory{registry.Tracer(Type,
		"OpenTelemetry tracing: spans exported over OTLP (HTTP or gRPC) or printed to stdout", build)}
}

// Provider is the built plugin: a Tracer over an SDK TracerProvider,
// which Close flushes and shuts down.
type Provider struct {
	*Tracer
	tp *sdktrace.TracerProvider
}

// Close exports the spans still buffered and stops the exporter.
func (p *Provider) Close(ctx context.Context) error { return p.tp.Shutdown(ctx) }

// TracerProvider returns the SDK provider, for an embedder that traces its
// own code into the same pipeline.
func (p *Provider) TracerProvider() *sdktrace.TracerProvider { return p.tp }

func build(ctx context.Context, c Config, d registry.Settings) (registry.Tracing, error) {
	exp, err := newExporter(ctx, c)
	if err != nil {
		return nil, err
	}
	res, err := newResource(c)
	if err != nil {
		return nil, err
	}
	tp := NewProvider(c, sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(c.BatchTimeout)), sdktrace.WithResource(res))
	d.Logger.Info("tracing enabled", "exporter", c.Exporter, "endpoint", c.Endpoint, "sampling_ratio", *c.SamplingRatio)
	return &Provider{Tracer: New(tp), tp: tp}, nil
}

// NewProvider returns an SDK TracerProvider with c's sampler (parent
// based: a trace context from a trusted upstream keeps its decision; new
// traces are sampled at c.SamplingRatio) and the given options, such as
// an exporter. c must have its defaults.
func NewProvider(c Config, opts ...sdktrace.TracerProviderOption) *sdktrace.TracerProvider {
	sampler := sdktrace.ParentBased(sdktrace.TraceIDRatioBased(*c.SamplingRatio))
	return sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{sdktrace.WithSampler(sampler)}, opts...)...)
}

func newExporter(ctx context.Context, c Config) (sdktrace.SpanExporter, error) {
	url := strings.Contains(c.Endpoint, "://")
	switch c.Exporter {
	case ExporterStdout:
		return stdouttrace.New()
	case ExporterOTLPGRPC:
		opts := []otlptracegrpc.Option{otlptracegrpc.WithTimeout(c.Timeout)}
		switch {
		case url:
			opts = append(opts, otlptracegrpc.WithEndpointURL(c.Endpoint))
		case c.Endpoint != "":
			opts = append(opts, otlptracegrpc.WithEndpoint(c.Endpoint))
		}
		if c.Insecure {
			opts = append(opts, otlptracegrpc.WithInsecure())
		}
		if len(c.Headers) > 0 {
			opts = append(opts, otlptracegrpc.WithHeaders(c.Headers))
		}
		return otlptracegrpc.New(ctx, opts...)
	default:
		opts := []otlptracehttp.Option{otlptracehttp.WithTimeout(c.Timeout)}
		switch {
		case url:
			opts = append(opts, otlptracehttp.WithEndpointURL(c.Endpoint))
		case c.Endpoint != "":
			opts = append(opts, otlptracehttp.WithEndpoint(c.Endpoint))
		}
		if c.Insecure {
			opts = append(opts, otlptracehttp.WithInsecure())
		}
		if len(c.Headers) > 0 {
			opts = append(opts, otlptracehttp.WithHeaders(c.Headers))
		}
		return otlptracehttp.New(ctx, opts...)
	}
}

func newResource(c Config) (*resource.Resource, error) {
	attrs := []attribute.KeyValue{attribute.String("service.name", c.ServiceName)}
	for k, v := range c.ResourceAttributes {
		attrs = append(attrs, attribute.String(k, v))
	}
	return resource.Merge(resource.Default(), resource.NewSchemaless(attrs...))
}
