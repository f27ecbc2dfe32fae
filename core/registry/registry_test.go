package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

type demoConfig struct {
	Listen  string        `yaml:"listen"`
	Paths   []string      `yaml:"paths,omitempty"`
	Timeout time.Duration `yaml:"timeout"`
	Limit   int           `yaml:"limit"`
}

func (c demoConfig) WithDefaults() demoConfig {
	if c.Limit == 0 {
		c.Limit = 10
	}
	return c
}

func (c demoConfig) Validate() error {
	if c.Listen == "" {
		return errors.New("listen is required")
	}
	return nil
}

type nopReceiver struct{ cfg demoConfig }

func (nopReceiver) Run(ctx context.Context, _ ports.EmitFunc) error { <-ctx.Done(); return nil }

func demoFactory() registry.ReceiverFactory {
	return registry.Receiver("demo", "a demo receiver", func(_ context.Context, c demoConfig, _ registry.Settings) (ports.Receiver, error) {
		return nopReceiver{c}, nil
	})
}

func TestDecode(t *testing.T) {
	r := registry.New()
	if err := r.Add(demoFactory()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		typ      string
		settings map[string]any
		want     any
		wantErr  string
	}{
		{"defaults and durations", "demo", map[string]any{"listen": ":1", "timeout": "1m30s"},
			demoConfig{Listen: ":1", Timeout: 90 * time.Second, Limit: 10}, ""},
		{"unknown key", "demo", map[string]any{"listen": ":1", "lisen": "x"}, nil, "lisen"},
		{"wrong type", "demo", map[string]any{"listen": ":1", "limit": "many"}, nil, "limit"},
		{"bad duration", "demo", map[string]any{"listen": ":1", "timeout": "soon"}, nil, `invalid duration "soon"`},
		{"validation", "demo", map[string]any{}, nil, "listen is required"},
		{"unknown type", "nope", nil, nil, `unknown receiver type "nope"; this binary bundles: demo`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.Decode(registry.KindReceiver, tc.typ, tc.settings)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to mention %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildAndSchema(t *testing.T) {
	r := registry.New()
	if err := r.Add(demoFactory()); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(demoFactory()); err == nil || !strings.Contains(err.Error(), "registered twice") {
		t.Errorf("second Add = %v, want a duplicate error", err)
	}
	f, ok := r.Receiver("demo")
	if !ok {
		t.Fatal("demo not found")
	}
	cfg, err := f.Decode(map[string]any{"listen": ":2"})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := f.Build(t.Context(), cfg, registry.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rc.(nopReceiver).cfg.Listen; got != ":2" {
		t.Errorf("built receiver listens on %q", got)
	}
	if _, err := f.Build(t.Context(), "not a config", registry.Settings{}); err == nil {
		t.Error("Build accepted a config of the wrong type")
	}
	var schema map[string]any
	if err := json.Unmarshal(f.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	props, _ := schema["properties"].(map[string]any)
	var names []string
	for k := range props {
		names = append(names, k)
	}
	if diff := cmp.Diff([]string{"limit", "listen", "paths", "timeout"}, names, cmpSorted); diff != "" {
		t.Errorf("schema properties (-want +got):\n%s", diff)
	}
	if cmp.Diff(r.Types(registry.KindReceiver), []string{"demo"}) != "" {
		t.Errorf("Types = %v", r.Types(registry.KindReceiver))
	}
}

var cmpSorted = cmpopts.SortSlices(func(a, b string) bool { return a < b })

type fakeSession struct{ ports.Session }
type otherSession struct{ ports.Session }

func TestSessionAs(t *testing.T) {
	want := &fakeSession{}
	got, err := registry.SessionAs[*fakeSession](registry.Settings{ID: "in", Session: want}, "fake")
	if err != nil || got != want {
		t.Fatalf("SessionAs = %v, %v", got, err)
	}
	for _, d := range []registry.Settings{{ID: "in"}, {ID: "in", Session: &otherSession{}}} {
		if _, err := registry.SessionAs[*fakeSession](d, "fake"); err == nil || !strings.Contains(err.Error(), "type: fake session") {
			t.Errorf("SessionAs(%+v) = %v; want an error naming the session type", d, err)
		}
	}
}

// TestBuildFillsTheSettingsDefaults: a constructor gets a logger, a meter
// and a clock even when the caller passed none, so no plugin checks them
// for nil; what the caller set is kept.
func TestBuildFillsTheSettingsDefaults(t *testing.T) {
	var got registry.Settings
	f := registry.Receiver("probe", "records its settings", func(_ context.Context, _ demoConfig, s registry.Settings) (ports.Receiver, error) {
		got = s
		return nil, nil
	})
	cfg, err := f.Decode(map[string]any{"listen": ":1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Build(t.Context(), cfg, registry.Settings{ID: "in"}); err != nil {
		t.Fatal(err)
	}
	if got.ID != "in" || got.Logger == nil || got.Meter == nil || got.Clock == nil {
		t.Errorf("constructor got %+v, want the ID kept and a logger, meter and clock filled in", got)
	}
	log := slog.New(slog.DiscardHandler)
	if _, err := f.Build(t.Context(), cfg, registry.Settings{Logger: log}); err != nil {
		t.Fatal(err)
	}
	if got.Logger != log {
		t.Error("the caller's logger was replaced")
	}
}
