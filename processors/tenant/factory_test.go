package tenant

import (
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/registry"
)

func TestFactoryBuildsFromSettings(t *testing.T) {
	f := Factory()
	cfg, err := f.Decode(map[string]any{"require_tenant": true, "in_flight_decrement_timeout": "1s"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Build(t.Context(), cfg, depsFor("cb-1"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "cb-1" {
		t.Errorf("Name = %q, want the entry name cb-1", p.Name())
	}
	if _, err := f.Decode(map[string]any{"require_tenat": true}); err == nil || !strings.Contains(err.Error(), "require_tenat") {
		t.Errorf("misspelt key: err = %v", err)
	}
}

func depsFor(id string) registry.Settings { return registry.Settings{ID: id} }
