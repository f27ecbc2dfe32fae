package otel_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/registry"
	bridgeotel "github.com/gobridge-oss/gobridge/telemetry/otel"
)

func ptr[T any](v T) *T { return &v }

func TestConfigDecoding(t *testing.T) {
	fac := bridgeotel.Factories()[0]
	tests := []struct {
		name     string
		settings map[string]any
		want     bridgeotel.Config
		wantErr  string
	}{
		{"defaults", nil, bridgeotel.Config{Exporter: "otlp_http", SamplingRatio: ptr(1.0), ServiceName: "gobridge",
			Timeout: 10 * time.Second, BatchTimeout: 5 * time.Second}, ""},
		{"every field", map[string]any{"exporter": "otlp_grpc", "endpoint": "collector:4317", "headers": map[string]any{"api-key": "k"},
			"insecure": true, "sampling_ratio": 0.1, "service_name": "edge", "resource_attributes": map[string]any{"deployment.environment": "prod"},
			"timeout": "3s", "batch_timeout": "1s"},
			bridgeotel.Config{Exporter: "otlp_grpc", Endpoint: "collector:4317", Headers: map[string]string{"api-key": "k"}, Insecure: true,
				SamplingRatio: ptr(0.1), ServiceName: "edge", ResourceAttributes: map[string]string{"deployment.environment": "prod"},
				Timeout: 3 * time.Second, BatchTimeout: time.Second}, ""},
		{"sampling 0 kept", map[string]any{"sampling_ratio": 0}, bridgeotel.Config{Exporter: "otlp_http", SamplingRatio: ptr(0.0), ServiceName: "gobridge",
			Timeout: 10 * time.Second, BatchTimeout: 5 * time.Second}, ""},
		{"unknown exporter", map[string]any{"exporter": "zipkin"}, bridgeotel.Config{}, "exporter"},
		{"ratio above 1", map[string]any{"sampling_ratio": 1.5}, bridgeotel.Config{}, "sampling_ratio"},
		{"unknown key", map[string]any{"sample_ratio": 0.5}, bridgeotel.Config{}, "sample_ratio"},
		{"service.name as attribute", map[string]any{"resource_attributes": map[string]any{"service.name": "x"}}, bridgeotel.Config{}, "service_name"},
		{"endpoint with stdout", map[string]any{"exporter": "stdout", "endpoint": "x:1"}, bridgeotel.Config{}, "stdout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fac.Decode(tc.settings)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Decode error = %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPluginBuildsEveryExporterAndFlushesOnClose(t *testing.T) {
	fac := bridgeotel.Factories()[0].(registry.TracerFactory)
	for _, exp := range []string{"stdout", "otlp_http", "otlp_grpc"} {
		t.Run(exp, func(t *testing.T) {
			settings := map[string]any{"exporter": exp}
			if exp != "stdout" {
				// Nothing listens there; Close must still return within its
				// context rather than hang.
				settings["endpoint"], settings["insecure"], settings["timeout"] = "127.0.0.1:1", true, "200ms"
			}
			cfg, err := fac.Decode(settings)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := fac.Build(context.Background(), cfg, registry.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = tr.Close(ctx) // an unreachable collector may report the failed export
			if ctx.Err() != nil {
				t.Error("Close did not return before its deadline")
			}
		})
	}
}
