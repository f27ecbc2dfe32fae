package builder

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// repoRoot is the gobridge checkout these tests run in.
var repoRoot = filepath.Join("..", "..")

// problemsOf parses raw (relative paths against the repository root) and
// returns its problems as text.
func problemsOf(t *testing.T, raw string) []string {
	t.Helper()
	abs, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse([]byte(raw), abs, "manifest.yaml")
	if err == nil {
		return nil
	}
	ps, ok := err.(Problems)
	if !ok {
		t.Fatalf("Parse returned %T %v, want Problems", err, err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

func TestParseProblems(t *testing.T) {
	const dist = "dist: {name: mybridge, module: example.com/mybridge}\n"
	const mqtt = "plugins: [{module: github.com/gobridge-oss/gobridge/transports/mqtt}]\n"
	tests := []struct {
		name string
		raw  string
		want []string
	}{
		{name: "valid", raw: dist + mqtt},
		{name: "valid with everything", raw: dist + mqtt + `local_repo: .
default_config: {import: github.com/gobridge-oss/gobridge/examples, var: Quickstart, name: the quickstart}
replaces: [{old: example.com/x, new: ../x}, {old: example.com/y@v1.0.0, new: example.com/z@v1.2.3}]
`},
		{name: "empty", raw: "", want: []string{"the manifest is empty"}},
		{name: "not YAML", raw: "dist: [", want: []string{"not YAML: yaml: line 1: did not find expected node content"}},
		{name: "unknown keys everywhere", raw: `dist: {name: b, module: example.com/b, nmae: x}
default_config: {import: github.com/gobridge-oss/gobridge/examples, var: Quickstart, file: x}
plugins: [{module: github.com/gobridge-oss/gobridge/transports/mqtt, versoin: v1.0.0}]
replaces: [{old: example.com/x, new: ../x, why: test}]
extra: 1
`, want: []string{
			"dist.nmae: unknown key (line 1); known here: name, module, description, go, package_dir, gobridge_version",
			"default_config.file: unknown key (line 2); known here: import, var, name",
			"plugins[0].versoin: unknown key (line 3); known here: module, version",
			"replaces[0].why: unknown key (line 4); known here: old, new",
			"extra: unknown key (line 5); known here: dist, default_config, plugins, replaces, local_repo",
		}},
		{name: "wrong type", raw: "dist: {name: b, module: example.com/b}\nplugins: {module: x}\n", want: []string{
			"line 2: cannot unmarshal !!map into []builder.Plugin",
		}},
		{name: "missing name, module and plugins", raw: "dist: {}\n", want: []string{
			"dist.name: is required (the binary's file name)",
			"dist.module: is required (the module path of the generated go.mod)",
			"plugins: at least one plugin is required; known: " + catalogueList(),
		}},
		{name: "bad dist fields", raw: "dist: {name: my/bridge, module: /abs, go: '2', package_dir: ../x, gobridge_version: latest}\n" + mqtt, want: []string{
			`dist.name: "my/bridge" is not a file name (letters, digits, '.', '_', '-')`,
			`dist.module: "/abs" is not a module path`,
			`dist.go: "2" is not a Go version such as 1.26.0`,
			`dist.package_dir: "../x" is not a clean slash-separated directory inside the module`,
			`dist.gobridge_version: "latest" is not a semantic version such as v0.0.0`,
		}},
		{name: "every plugin problem at once", raw: dist + `plugins:
  - {module: github.com/gobridge-oss/gobridge/transports/mqtt}
  - {module: github.com/gobridge-oss/gobridge/processors/filter, version: "1.0"}
  - {module: github.com/gobridge-oss/gobridge/transports/kafka}
  - {module: github.com/acme/bridge-plugin, version: v1.2.0}
  - {module: github.com/gobridge-oss/gobridge/transports/mqtt}
  - {version: v0.0.0}
`, want: []string{
			`plugins[1].version: "1.0" is not a semantic version such as v0.0.0`,
			`plugins[2].module: unknown plugin "github.com/gobridge-oss/gobridge/transports/kafka"; known: ` + catalogueList(),
			`plugins[3].module: third-party plugin "github.com/acme/bridge-plugin": not supported yet; known: ` + catalogueList(),
			`plugins[4].module: "github.com/gobridge-oss/gobridge/transports/mqtt" is listed already at plugins[0]`,
			`plugins[5].module: is required`,
		}},
		{name: "default_config without import and var", raw: dist + mqtt + "default_config: {name: x}\n", want: []string{
			"default_config.import: is required (the package holding the configuration)",
			"default_config.var: is required (an exported []byte variable)",
		}},
		{name: "default_config outside the distro's modules", raw: dist + mqtt + "default_config: {import: example.com/configs, var: quickstart}\n", want: []string{
			`default_config.import: package "example.com/configs" is in none of the modules the distro builds with (core, service, examples, the listed plugins)`,
			`default_config.var: "quickstart" is not an exported Go identifier`,
		}},
		{name: "default_config clashing with a plugin's package", raw: dist + mqtt + "default_config: {import: github.com/gobridge-oss/gobridge/core/mqtt, var: X}\n", want: []string{
			`default_config.import: package name "mqtt" clashes with the import of "github.com/gobridge-oss/gobridge/transports/mqtt"`,
		}},
		{name: "local_repo that is no checkout", raw: dist + mqtt + "local_repo: core\n", want: []string{
			"local_repo: " + filepath.Join(mustAbs(t, repoRoot), "core") + " is not a gobridge checkout (no core/go.mod)",
		}},
		{name: "bad replaces", raw: dist + mqtt + `replaces:
  - {old: example.com/x, new: ../x}
  - {old: example.com/x, new: example.com/y}
  - {new: ./z}
  - {old: "bad path", new: ./z}
`, want: []string{
			`replaces[1].old: "example.com/x" is replaced already at replaces[0]`,
			`replaces[1].new: "example.com/y" is neither a directory (./, ../ or absolute) nor module@version`,
			"replaces[2].old: is required",
			`replaces[3].old: "bad path" is not a module path`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, problemsOf(t, tc.raw)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	m, err := Parse([]byte(`dist: {name: b, module: example.com/b}
plugins: [{module: github.com/gobridge-oss/gobridge/transports/mqtt}, {module: github.com/gobridge-oss/gobridge/processors/filter, version: v0.3.0}]
local_repo: ../gobridge
`), "/home/me/b", "b.yaml")
	if err == nil || !strings.Contains(err.Error(), "local_repo: /home/me/gobridge is not a gobridge checkout") {
		t.Fatalf("want the local_repo problem alone, got %v", err)
	}
	m, err = Parse([]byte(`dist: {name: b, module: example.com/b}
plugins: [{module: github.com/gobridge-oss/gobridge/transports/mqtt}, {module: github.com/gobridge-oss/gobridge/processors/filter, version: v0.3.0}]
`), "/home/me/b", "b.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Manifest{
		Dist: Dist{Name: "b", Module: "example.com/b", Go: DefaultGo, PackageDir: ".", GobridgeVersion: "v0.0.0",
			Description: "a gobridge distro: the bridge service with the plugins listed in components.go"},
		Plugins: []Plugin{
			{Module: "github.com/gobridge-oss/gobridge/transports/mqtt", Version: "v0.0.0"},
			{Module: "github.com/gobridge-oss/gobridge/processors/filter", Version: "v0.3.0"},
		},
	}
	if diff := cmp.Diff(want, m, cmpopts.IgnoreUnexported(Manifest{})); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}
}

// mustAbs is filepath.Abs that fails the test on error.
func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
