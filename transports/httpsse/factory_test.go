package httpsse

import (
	"testing"

	"github.com/gobridge-oss/gobridge/core/registry"
)

func TestFactoriesBuildFromSettings(t *testing.T) {
	tests := []struct {
		name     string
		decode   func(map[string]any) (any, error)
		build    func(any) error
		settings map[string]any
	}{
		{"http", ReceiverFactory().Decode, func(c any) error {
			_, err := ReceiverFactory().Build(t.Context(), c, registry.Deps{ID: "in"})
			return err
		}, map[string]any{"listen": "127.0.0.1:0", "paths": []any{"/p"}, "read_timeout": "5s"}},
		{"sse", SSEFactory().Decode, func(c any) error {
			s, err := SSEFactory().Build(t.Context(), c, registry.Deps{ID: "out"})
			if err == nil {
				_ = s.(*SSESender).Close(t.Context())
			}
			return err
		}, map[string]any{"listen": "127.0.0.1:0"}},
		{"webhook", WebhookFactory().Decode, func(c any) error {
			_, err := WebhookFactory().Build(t.Context(), c, registry.Deps{ID: "hook"})
			return err
		}, map[string]any{"url": "http://127.0.0.1:1/hook"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := tc.decode(tc.settings)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.build(cfg); err != nil {
				t.Fatal(err)
			}
			bad := map[string]any{"no_such_field": 1}
			if _, err := tc.decode(bad); err == nil {
				t.Error("unknown key accepted")
			}
		})
	}
}
