package service

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/registry"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

type fakeTracerConfig struct {
	Endpoint string            `yaml:"endpoint"`
	Headers  map[string]string `yaml:"headers" secret:"true"`
}

// fakeTracing counts Close calls.
type fakeTracing struct {
	telemetry.Tracer
	endpoint string
	closed   *int
}

func (f fakeTracing) Close(context.Context) error {
	*f.closed++
	return nil
}

func tracerRegistry(t *testing.T, closed *int) *registry.Registry {
	t.Helper()
	reg := registry.New()
	err := reg.Add(registry.Tracer("fake", "a test tracer", func(_ context.Context, c fakeTracerConfig, _ registry.Settings) (registry.Tracing, error) {
		return fakeTracing{Tracer: telemetry.NewRecorder(), endpoint: c.Endpoint, closed: closed}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func tracingFile(t *testing.T, block string) *config.File {
	t.Helper()
	f, err := config.Parse([]byte("bridge: {id: b}\ntelemetry:\n  tracing:\n"+block), config.WithEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestTracingRefusedWithoutATracerPlugin(t *testing.T) {
	f := tracingFile(t, "    type: otel\n    settings: {exporter: stdout}\n")
	_, err := Validate(f, registry.New(), nil)
	if err == nil || !strings.Contains(err.Error(), "telemetry.tracing: tracing is not supported in this build") {
		t.Fatalf("Validate = %v, want telemetry.tracing refused as not supported in this build", err)
	}
	if _, err := openTracer(context.Background(), f, registry.New(), registry.Settings{}); err == nil || !strings.Contains(err.Error(), "not supported in this build") {
		t.Errorf("openTracer = %v, want not supported in this build", err)
	}
}

func TestTracingSettingsCheckedAndBuilt(t *testing.T) {
	var closed int
	reg := tracerRegistry(t, &closed)
	tests := []struct {
		name, block, wantProblem string
	}{
		{"unknown type", "    type: otel\n", "telemetry.tracing.type"},
		{"unknown setting", "    type: fake\n    settings: {endpont: x}\n", "telemetry.tracing.settings"},
		{"valid", "    type: fake\n    settings: {endpoint: collector:4318}\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			probs := SettingsCheck(reg)(tracingFile(t, tc.block))
			var paths []string
			for _, p := range probs {
				paths = append(paths, p.Path)
			}
			var want []string
			if tc.wantProblem != "" {
				want = []string{tc.wantProblem}
			}
			if diff := cmp.Diff(want, paths); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%v", diff, probs)
			}
		})
	}
	f := tracingFile(t, "    type: fake\n    settings: {endpoint: collector:4318}\n")
	tr, err := openTracer(context.Background(), f, reg, registry.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.(fakeTracing).endpoint; got != "collector:4318" {
		t.Errorf("built with endpoint %q", got)
	}
	b := &Service{tracing: tr, log: slog.New(slog.DiscardHandler)}
	if b.tracer() != telemetry.Tracer(tr) {
		t.Error("the routes would not trace through the configured tracer")
	}
	b.closeTracing(context.Background())
	b.closeTracing(context.Background())
	if closed != 1 {
		t.Errorf("tracer closed %d times, want once", closed)
	}
	if !telemetry.IsNoopTracer(b.tracer()) {
		t.Error("after close the routes would still trace")
	}
}

func TestTracingHeadersRedactedInTheConfigView(t *testing.T) {
	var closed int
	reg := tracerRegistry(t, &closed)
	f := tracingFile(t, "    type: fake\n    settings: {endpoint: collector:4318, headers: {x-api-key: s3cret}}\n")
	red := f.Redacted(PluginSchemas(reg))
	got := red["telemetry"].(map[string]any)["tracing"].(map[string]any)["settings"]
	want := map[string]any{"endpoint": "collector:4318", "headers": map[string]any{"x-api-key": config.RedactedValue}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("redacted tracing settings (-want +got):\n%s", diff)
	}
}
