package registry_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/registry"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

type tracerConfig struct {
	Ratio float64 `yaml:"ratio"`
}

type closingTracer struct {
	telemetry.Tracer
	ratio float64
}

func (closingTracer) Close(context.Context) error { return nil }

func TestTracerFactoryRegistersDecodesAndBuilds(t *testing.T) {
	f := registry.Tracer("demo", "a demo tracer", func(_ context.Context, c tracerConfig, _ registry.Settings) (registry.Tracing, error) {
		return closingTracer{Tracer: telemetry.NoopTracer(), ratio: c.Ratio}, nil
	})
	reg := registry.New()
	if err := reg.Add(f); err != nil {
		t.Fatal(err)
	}
	if err := reg.Add(f); err == nil {
		t.Error("a second tracer factory of the same type was accepted")
	}
	if diff := cmp.Diff([]string{"demo"}, reg.Types(registry.KindTracer)); diff != "" {
		t.Errorf("tracer types (-want +got):\n%s", diff)
	}
	if _, err := reg.Decode(registry.KindTracer, "demo", map[string]any{"ratiox": 1}); err == nil {
		t.Error("an unknown tracer setting was accepted")
	}
	cfg, err := reg.Decode(registry.KindTracer, "demo", map[string]any{"ratio": 0.25})
	if err != nil {
		t.Fatal(err)
	}
	fac, ok := reg.Tracer("demo")
	if !ok {
		t.Fatal("Tracer(demo) not found")
	}
	tr, err := fac.Build(context.Background(), cfg, registry.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.(closingTracer).ratio; got != 0.25 {
		t.Errorf("built with ratio %v, want 0.25", got)
	}
}
