package bundle

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEveryPluginModuleIsBundled walks the repository for plugin modules
// (transports, processors, stores) and checks Modules lists each one, and
// that the distro's go.mod requires it.
func TestEveryPluginModuleIsBundled(t *testing.T) {
	root := filepath.Join("..", "..")
	var found []string
	for _, dir := range []string{"transports", "processors", "stores"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			mod := filepath.Join(root, dir, e.Name(), "go.mod")
			data, err := os.ReadFile(mod)
			if err != nil {
				continue
			}
			line, _, _ := strings.Cut(string(data), "\n")
			found = append(found, strings.TrimSpace(strings.TrimPrefix(line, "module")))
		}
	}
	slices.Sort(found)
	if diff := cmp.Diff(found, Modules()); diff != "" {
		t.Errorf("plugin modules in the repository (-) vs bundled (+):\n%s", diff)
	}
	gomod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range Modules() {
		if !strings.Contains(string(gomod), m+" ") {
			t.Errorf("distro/go.mod does not require %s", m)
		}
	}
}

func TestRegistryHoldsEveryFactory(t *testing.T) {
	r, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Receiver("http"); !ok {
		t.Error("http receiver missing")
	}
	if _, ok := r.Store("sqlite"); !ok {
		t.Error("sqlite store missing")
	}
}
