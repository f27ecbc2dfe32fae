package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTracingBlock(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    *Tracing
		wantErr string
	}{
		{"absent", "", nil, ""},
		{"type and settings kept for the plugin", "telemetry:\n  tracing:\n    type: otel\n    settings: {exporter: stdout, sampling_ratio: 0.5}\n",
			&Tracing{Type: "otel", Settings: map[string]any{"exporter": "stdout", "sampling_ratio": 0.5}}, ""},
		{"type required", "telemetry:\n  tracing:\n    settings: {exporter: stdout}\n", nil, "telemetry.tracing.type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(baseYAML+tt.yaml), WithEnv(nil))
			if err == nil {
				_, err = f.Validate()
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, f.Telemetry.Tracing); diff != "" {
				t.Errorf("tracing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTracingSecretsRedacted(t *testing.T) {
	f, err := Parse([]byte(baseYAML+"telemetry:\n  tracing:\n    type: otel\n    settings: {headers: {x-honeycomb-team: abc}, endpoint: collector:4318}\n"), WithEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	schema := json.RawMessage(`{"type":"object","properties":{"headers":{"type":"object","x-secret":true},"endpoint":{"type":"string"}}}`)
	red := f.Redacted(map[string]map[string]json.RawMessage{KindTracer: {"otel": schema}})
	got := red["telemetry"].(map[string]any)["tracing"].(map[string]any)["settings"]
	want := map[string]any{"headers": map[string]any{"x-honeycomb-team": RedactedValue}, "endpoint": "collector:4318"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("redacted tracing settings (-want +got):\n%s", diff)
	}
}
