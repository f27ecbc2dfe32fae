package httpsse

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
	"github.com/gobridge-oss/gobridge/core/streamlog"
)

func TestFactoriesBuildFromSettings(t *testing.T) {
	tests := []struct {
		name     string
		decode   func(map[string]any) (any, error)
		build    func(any) error
		settings map[string]any
	}{
		{"http", ReceiverFactory().Decode, func(c any) error {
			_, err := ReceiverFactory().Build(t.Context(), c, registry.Settings{ID: "in"})
			return err
		}, map[string]any{"listen": "127.0.0.1:0", "paths": []any{"/p"}, "read_timeout": "5s"}},
		{"sse", SSEFactory().Decode, func(c any) error {
			s, err := SSEFactory().Build(t.Context(), c, registry.Settings{ID: "out"})
			if err == nil {
				_ = s.(*SSESender).Close(t.Context())
			}
			return err
		}, map[string]any{"listen": "127.0.0.1:0"}},
		{"webhook", WebhookFactory().Decode, func(c any) error {
			_, err := WebhookFactory().Build(t.Context(), c, registry.Settings{ID: "hook"})
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

// TestSSEFactoryReplayLogFromDeps: the factory keeps the replay log in
// the store the bridge passes; without one, auto warns and keeps it in
// memory, and store refuses.
func TestSSEFactoryReplayLogFromDeps(t *testing.T) {
	settings := map[string]any{"listen": "-", "replay_from": "earliest", "log_max_age": "1h",
		"channels": map[string]any{"orders": map[string]any{"replay_from": "live", "log_max_events": 5, "log_max_age": "2h"}}}
	decoded, err := SSEFactory().Decode(settings)
	if err != nil {
		t.Fatal(err)
	}
	cfg := decoded.(SSEConfig)
	if got, want := cfg.channel("orders"), (channelSettings{ReplayFromLive, ports.StreamBounds{MaxEvents: 5, MaxBytes: DefaultLogMaxBytes, MaxAge: 2 * time.Hour}}); got != want {
		t.Errorf("orders settings %+v, want %+v", got, want)
	}
	if got := cfg.channel("other"); got.replayFrom != ReplayFromEarliest || got.bounds.MaxAge != time.Hour {
		t.Errorf("other settings %+v", got)
	}
	build := func(cfg SSEConfig, d registry.Settings) (*SSESender, string, error) {
		var logs bytes.Buffer
		d.ID, d.Logger = "out", slog.New(slog.NewTextHandler(&logs, nil))
		s, err := SSEFactory().Build(t.Context(), cfg, d)
		if err != nil {
			return nil, logs.String(), err
		}
		t.Cleanup(func() { _ = s.(*SSESender).Close(context.Background()) })
		return s.(*SSESender), logs.String(), nil
	}
	store := streamlog.NewMemory(nil)
	s, logs, err := build(cfg, registry.Settings{StreamLog: store})
	if err != nil || s.hub.log != ports.StreamLog(store) || strings.Contains(logs, "WARN") {
		t.Errorf("with a store: err %v, uses it %v, logs %q", err, err == nil && s.hub.log == ports.StreamLog(store), logs)
	}
	s, logs, err = build(cfg, registry.Settings{})
	if err != nil || !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "replay log in memory") {
		t.Errorf("auto without a store: err %v, logs %q", err, logs)
	}
	cfg.ReplayLog = ReplayLogStore
	if _, _, err := build(cfg, registry.Settings{}); fault.CodeOf(err) != fault.CodeInvalidConfig {
		t.Errorf("store without a store: %v, want INVALID_CONFIG", err)
	}
	cfg.ReplayLog = ReplayLogMemory
	if _, logs, err := build(cfg, registry.Settings{}); err != nil || strings.Contains(logs, "WARN") {
		t.Errorf("memory: err %v, logs %q", err, logs)
	}
}
