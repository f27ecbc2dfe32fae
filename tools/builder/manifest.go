// Package builder turns a distro manifest into the sources of a gobridge
// binary (main.go, components.go and go.mod) and, optionally, compiles
// them. The gobridge-builder command (cmd/gobridge-builder) is its command
// line; the curated distro in distro/ is its output for
// distro/manifest.yaml.
package builder

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Defaults of the optional manifest fields.
const (
	// DefaultGo is the go directive of a generated go.mod.
	DefaultGo = "1.26.0"
	// DefaultPackageDir puts main.go and components.go at the module root.
	DefaultPackageDir = "."
	// DefaultGobridgeVersion is the version required of core, service,
	// examples, and of a plugin listed without one. Unpublished modules
	// are v0.0.0 and reached through replaces.
	DefaultGobridgeVersion = "v0.0.0"
)

// Manifest describes one distro: the binary, its module, the plugins it
// bundles and where their sources come from.
type Manifest struct {
	// Dist names the binary and its module.
	Dist Dist `yaml:"dist"`
	// DefaultConfig is the configuration `run` uses without -c; nil makes
	// -c required.
	DefaultConfig *DefaultConfig `yaml:"default_config"`
	// Plugins are the plugin modules bundled, in the order their factories
	// are appended.
	Plugins []Plugin `yaml:"plugins"`
	// Replaces are replace directives written into go.mod as given; one
	// naming the same module as a local_repo replace takes its place.
	Replaces []Replace `yaml:"replaces"`
	// LocalRepo is a gobridge checkout (relative paths are relative to the
	// manifest's directory). When set, every gobridge module the distro
	// uses is replaced by its directory in that checkout.
	LocalRepo string `yaml:"local_repo"`

	// dir is the manifest's directory, against which relative paths are
	// resolved.
	dir string
	// source is the manifest's file name, quoted in generated headers.
	source string
}

// Dist is the binary and the module that builds it.
type Dist struct {
	// Name is the binary's file name and the name its commands print.
	// Required.
	Name string `yaml:"name"`
	// Module is the module path of the generated go.mod. Required.
	Module string `yaml:"module"`
	// Description completes "Command <name> is ..." in main.go's doc
	// comment (default: "a gobridge distro: the bridge service with the
	// plugins listed in components.go").
	Description string `yaml:"description"`
	// Go is the go directive (default DefaultGo).
	Go string `yaml:"go"`
	// PackageDir is where main.go and components.go go inside the module
	// (default DefaultPackageDir).
	PackageDir string `yaml:"package_dir"`
	// GobridgeVersion is the version of core, service and examples
	// (default DefaultGobridgeVersion).
	GobridgeVersion string `yaml:"gobridge_version"`
}

// DefaultConfig names an exported []byte variable holding the embedded
// default configuration.
type DefaultConfig struct {
	// Import is the package path; it must belong to core, service,
	// examples or a listed plugin.
	Import string `yaml:"import"`
	// Var is the exported variable's name in that package.
	Var string `yaml:"var"`
	// Name describes the configuration in logs and usage (optional).
	Name string `yaml:"name"`
}

// Plugin is one plugin module the distro bundles.
type Plugin struct {
	// Module is the plugin's module path, one of the catalogue.
	Module string `yaml:"module"`
	// Version is the module version required (default: the dist's
	// gobridge_version).
	Version string `yaml:"version"`
}

// Replace is one replace directive: Old => New.
type Replace struct {
	// Old is a module path, optionally with @version.
	Old string `yaml:"old"`
	// New is a local directory (relative to the manifest's directory) or
	// a module path with @version.
	New string `yaml:"new"`
}

// Problem is one thing wrong with a manifest, named by its field path.
type Problem struct {
	// Field is the path of the field, e.g. "plugins[2].module".
	Field string
	// Message says what is wrong.
	Message string
}

// String renders the problem as "field: message".
func (p Problem) String() string {
	if p.Field == "" {
		return p.Message
	}
	return p.Field + ": " + p.Message
}

// Problems is every problem found in a manifest; as an error it lists
// them one per line.
type Problems []Problem

// Error implements error.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Load reads the manifest at path, applies the defaults and validates it.
// A manifest with problems returns them all as Problems.
func Load(path string) (*Manifest, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return Parse(raw, filepath.Dir(abs), filepath.Base(path))
}

// Parse decodes a manifest whose relative paths are relative to dir and
// whose file name (quoted in generated headers) is source, applies the
// defaults and validates it. Unknown keys are problems, reported with the
// others.
func Parse(raw []byte, dir, source string) (*Manifest, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Problems{{Message: "the manifest is empty"}}
		}
		return nil, Problems{{Message: "not YAML: " + err.Error()}}
	}
	ps := unknownKeys(&root)
	m := &Manifest{dir: dir, source: source}
	if err := root.Decode(m); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, append(ps, Problem{Message: err.Error()})
		}
		for _, e := range te.Errors {
			ps = append(ps, Problem{Message: e})
		}
		return nil, ps
	}
	m.applyDefaults()
	if ps = append(ps, m.validate()...); len(ps) > 0 {
		return nil, ps
	}
	return m, nil
}

// applyDefaults fills the optional fields left empty.
func (m *Manifest) applyDefaults() {
	d := &m.Dist
	if d.Go == "" {
		d.Go = DefaultGo
	}
	if d.PackageDir == "" {
		d.PackageDir = DefaultPackageDir
	}
	if d.GobridgeVersion == "" {
		d.GobridgeVersion = DefaultGobridgeVersion
	}
	if d.Description == "" {
		d.Description = "a gobridge distro: the bridge service with the plugins listed in components.go"
	}
	for i := range m.Plugins {
		if m.Plugins[i].Version == "" {
			m.Plugins[i].Version = d.GobridgeVersion
		}
	}
	if m.LocalRepo != "" && !filepath.IsAbs(m.LocalRepo) {
		m.LocalRepo = filepath.Join(m.dir, m.LocalRepo)
	}
}

// keys are the fields each part of a manifest accepts.
var keys = map[string][]string{
	"":               {"dist", "default_config", "plugins", "replaces", "local_repo"},
	"dist":           {"name", "module", "description", "go", "package_dir", "gobridge_version"},
	"default_config": {"import", "var", "name"},
	"plugins[]":      {"module", "version"},
	"replaces[]":     {"old", "new"},
}

// unknownKeys reports every mapping key the manifest's schema lacks, with
// its field path and line.
func unknownKeys(doc *yaml.Node) Problems {
	var ps Problems
	var walk func(n *yaml.Node, path, schema string)
	walk = func(n *yaml.Node, path, schema string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path, schema)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i), schema+"[]")
			}
		case yaml.MappingNode:
			known, ok := keys[schema]
			if !ok {
				return
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				field := k
				if path != "" {
					field = path + "." + k
				}
				if !slices.Contains(known, k) {
					ps = append(ps, Problem{Field: field, Message: fmt.Sprintf("unknown key (line %d); known here: %s",
						n.Content[i].Line, strings.Join(known, ", "))})
					continue
				}
				walk(n.Content[i+1], field, strings.TrimPrefix(schema+"."+k, "."))
			}
		}
	}
	walk(doc, "", "")
	return ps
}
