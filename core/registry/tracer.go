package registry

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// KindTracer is the kind of the plugin that telemetry.tracing names. A
// binary bundles at most a few; a configuration uses one.
const KindTracer Kind = "tracer"

// Tracing is a built tracer plugin: the tracer the routes open spans
// with, and Close, which flushes the spans not yet exported and stops the
// exporter. The service closes it last at stop, once no route runs.
type Tracing interface {
	telemetry.Tracer
	ports.Closer
}

// TracerFactory builds the tracer of telemetry.tracing.
type TracerFactory interface {
	Factory
	Build(ctx context.Context, cfg any, d Settings) (Tracing, error)
}

// Tracer returns a factory for tracers whose settings decode into C.
func Tracer[C any](typ, doc string, build func(ctx context.Context, cfg C, d Settings) (Tracing, error)) TracerFactory {
	return builder[C, Tracing]{typed[C]{KindTracer, typ, doc}, build}
}
