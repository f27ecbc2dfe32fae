package filter

import (
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/registry"
)

func TestFactoryBuildsFromSettings(t *testing.T) {
	f := Factory()
	cfg, err := f.Decode(map[string]any{"action": "drop", "conditions": []any{map[string]any{"field": "subject", "operator": "eq", "value": "x"}}})
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
	if _, err := f.Decode(map[string]any{"actoin": "drop"}); err == nil || !strings.Contains(err.Error(), "actoin") {
		t.Errorf("misspelt key: err = %v", err)
	}
}

func depsFor(id string) registry.Settings { return registry.Settings{ID: id} }
