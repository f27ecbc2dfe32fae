// Package distro holds the curated distro's structure test; the binary is
// cmd/gobridge.
package distro

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const repo = "github.com/gobridge-oss/gobridge/"

// imports lists, for every package of the module in dir, its import path
// and what it imports: the package itself, or with tests its test files
// too.
func imports(t *testing.T, dir string, tests bool) map[string][]string {
	t.Helper()
	format := `{{.ImportPath}}|{{join .Imports ","}}`
	if tests {
		format = `{{.ImportPath}}|{{join .Imports ","}},{{join .TestImports ","}},{{join .XTestImports ","}}`
	}
	cmd := exec.Command("go", "list", "-f", format, "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list in %s: %v\n%s", dir, err, stderr)
	}
	res := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		pkg, list, _ := strings.Cut(sc.Text(), "|")
		for _, imp := range strings.Split(list, ",") {
			if strings.HasPrefix(imp, repo) {
				res[pkg] = append(res[pkg], strings.TrimPrefix(imp, repo))
			}
		}
	}
	return res
}

// kind is the part of the repository a gobridge import path is in.
func kind(p string) string {
	switch {
	case strings.HasPrefix(p, "transports/"), strings.HasPrefix(p, "processors/"), strings.HasPrefix(p, "stores/"),
		strings.HasPrefix(p, "telemetry/"):
		return "plugin"
	case p == "service" || strings.HasPrefix(p, "service/"):
		return "service"
	case p == "core" || strings.HasPrefix(p, "core/"):
		return "core"
	}
	return strings.SplitN(p, "/", 2)[0]
}

// pluginModule is the module of a plugin package, e.g. transports/mqtt.
func pluginModule(p string) string {
	parts := strings.Split(p, "/")
	return parts[0] + "/" + parts[1]
}

// TestModuleArrows enforces the house's arrows from go list: core imports
// no other part; service imports only core; a plugin imports core only
// (never another plugin nor service, tests included); the distro's
// binary imports service, its cli, plugins' root (factory) packages, the
// registry's factory type and the embedded examples.
func TestModuleArrows(t *testing.T) {
	root := filepath.Join("..")
	var problems []string
	check := func(dir string, tests bool, allowed func(from, to string) bool) {
		for pkg, deps := range imports(t, filepath.Join(root, dir), tests) {
			from := strings.TrimPrefix(pkg, repo)
			for _, to := range deps {
				if !allowed(from, to) {
					problems = append(problems, from+" -> "+to)
				}
			}
		}
	}
	check("core", true, func(_, to string) bool { return kind(to) == "core" })
	check("service", true, func(_, to string) bool { return kind(to) == "core" || kind(to) == "service" })
	for _, m := range []string{"transports/mqtt", "transports/amqp091", "transports/amqp10", "transports/sqs",
		"transports/servicebus", "transports/httpsse", "processors/filter", "processors/transform",
		"processors/circuitbreaker", "processors/tenant", "stores/memory", "stores/sqlite", "stores/dynamodb", "telemetry/otel"} {
		check(m, true, func(from, to string) bool {
			return kind(to) == "core" || (kind(to) == "plugin" && pluginModule(to) == pluginModule(from))
		})
	}
	check("distro", false, func(_, to string) bool {
		switch {
		case kind(to) == "service", to == "examples", to == "core/registry":
			return true
		case kind(to) == "plugin":
			return strings.Count(to, "/") == 1 // a plugin's root package
		}
		return false
	})
	// The embedding example shows what a user's program needs: the
	// service and plugins' root packages.
	check("examples/embed", false, func(_, to string) bool {
		return kind(to) == "service" || (kind(to) == "plugin" && strings.Count(to, "/") == 1)
	})
	if len(problems) > 0 {
		t.Errorf("imports against the house's arrows:\n  %s", strings.Join(problems, "\n  "))
	}
}

// TestRootReadmeListsEveryModule compares the root README's module table
// with the modules go.work uses, both ways.
func TestRootReadmeListsEveryModule(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	work, err := os.ReadFile(filepath.Join("..", "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	inReadme := map[string]bool{}
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "| [`") {
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "| [`"), "`")
			inReadme[name] = true
		}
	}
	inWork := map[string]bool{}
	for _, line := range strings.Split(string(work), "\n") {
		if m := strings.TrimSpace(line); strings.HasPrefix(m, "./") {
			inWork[strings.TrimPrefix(m, "./")] = true
		}
	}
	for m := range inWork {
		if !inReadme[m] {
			t.Errorf("module %s is in go.work but not in the README's module table", m)
		}
	}
	for m := range inReadme {
		if !inWork[m] {
			t.Errorf("the README's module table lists %s, which go.work does not use", m)
		}
	}
}
