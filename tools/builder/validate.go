package builder

import (
	"fmt"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// RepoModule is the module path prefix of every gobridge module.
const RepoModule = "github.com/gobridge-oss/gobridge"

// Core modules every distro requires.
const (
	// CoreModule holds the registry the factories are listed with.
	CoreModule = RepoModule + "/core"
	// ServiceModule holds the service and its command line.
	ServiceModule = RepoModule + "/service"
	// ExamplesModule holds the example configurations, the quickstart
	// among them.
	ExamplesModule = RepoModule + "/examples"
)

// Catalogue is every plugin module the builder knows, by path relative to
// RepoModule. Each has a root package, named after the path's last
// element, exporting Factories() []registry.Factory.
var Catalogue = []string{
	"processors/circuitbreaker",
	"processors/filter",
	"processors/tenant",
	"processors/transform",
	"stores/dynamodb",
	"stores/memory",
	"stores/sqlite",
	"telemetry/otel",
	"transports/amqp091",
	"transports/amqp10",
	"transports/httpsse",
	"transports/mqtt",
	"transports/servicebus",
	"transports/sqs",
}

var (
	nameRE    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	moduleRE  = regexp.MustCompile(`^[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*$`)
	goRE      = regexp.MustCompile(`^1\.[0-9]+(\.[0-9]+|rc[0-9]+)?$`)
	versionRE = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
)

// known reports whether module is a catalogued plugin.
func known(module string) bool {
	rel, ok := strings.CutPrefix(module, RepoModule+"/")
	return ok && slices.Contains(Catalogue, rel)
}

// validate reports every problem of a defaulted manifest.
func (m *Manifest) validate() Problems {
	var ps Problems
	add := func(field, format string, args ...any) {
		ps = append(ps, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	d := m.Dist
	switch {
	case d.Name == "":
		add("dist.name", "is required (the binary's file name)")
	case !nameRE.MatchString(d.Name):
		add("dist.name", "%q is not a file name (letters, digits, '.', '_', '-')", d.Name)
	}
	switch {
	case d.Module == "":
		add("dist.module", "is required (the module path of the generated go.mod)")
	case !validModule(d.Module):
		add("dist.module", "%q is not a module path", d.Module)
	}
	if !goRE.MatchString(d.Go) {
		add("dist.go", "%q is not a Go version such as %s", d.Go, DefaultGo)
	}
	if p := d.PackageDir; filepath.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, `\`) {
		add("dist.package_dir", "%q is not a clean slash-separated directory inside the module", p)
	}
	if !versionRE.MatchString(d.GobridgeVersion) {
		add("dist.gobridge_version", "%q is not a semantic version such as v0.0.0", d.GobridgeVersion)
	}
	if len(m.Plugins) == 0 {
		add("plugins", "at least one plugin is required; known: %s", catalogueList())
	}
	seen := map[string]int{}
	for i, p := range m.Plugins {
		field := fmt.Sprintf("plugins[%d]", i)
		switch {
		case p.Module == "":
			add(field+".module", "is required")
		case known(p.Module):
			if j, dup := seen[p.Module]; dup {
				add(field+".module", "%q is listed already at plugins[%d]", p.Module, j)
			}
			seen[p.Module] = i
		case !strings.HasPrefix(p.Module, RepoModule+"/"):
			add(field+".module", "third-party plugin %q: not supported yet; known: %s", p.Module, catalogueList())
		default:
			add(field+".module", "unknown plugin %q; known: %s", p.Module, catalogueList())
		}
		// A version equal to gobridge_version was reported there.
		if p.Version != d.GobridgeVersion && !versionRE.MatchString(p.Version) {
			add(field+".version", "%q is not a semantic version such as v0.0.0", p.Version)
		}
	}
	ps = append(ps, m.validateDefaultConfig()...)
	ps = append(ps, m.validateSources()...)
	return ps
}

// validateDefaultConfig checks default_config: an exported variable of a
// package in a module the distro builds with.
func (m *Manifest) validateDefaultConfig() Problems {
	dc := m.DefaultConfig
	if dc == nil {
		return nil
	}
	var ps Problems
	switch {
	case dc.Import == "":
		ps = append(ps, Problem{"default_config.import", "is required (the package holding the configuration)"})
	case m.moduleOf(dc.Import) == "":
		ps = append(ps, Problem{"default_config.import", fmt.Sprintf(
			"package %q is in none of the modules the distro builds with (core, service, examples, the listed plugins)", dc.Import)})
	default:
		pkg := path.Base(dc.Import)
		for _, imp := range m.imports() {
			if imp != dc.Import && path.Base(imp) == pkg {
				ps = append(ps, Problem{"default_config.import", fmt.Sprintf(
					"package name %q clashes with the import of %q", pkg, imp)})
			}
		}
	}
	if dc.Var == "" {
		ps = append(ps, Problem{"default_config.var", "is required (an exported []byte variable)"})
	} else if !token.IsIdentifier(dc.Var) || !token.IsExported(dc.Var) {
		ps = append(ps, Problem{"default_config.var", fmt.Sprintf("%q is not an exported Go identifier", dc.Var)})
	}
	return ps
}

// validateSources checks local_repo and replaces.
func (m *Manifest) validateSources() Problems {
	var ps Problems
	if m.LocalRepo != "" {
		if _, err := os.Stat(filepath.Join(m.LocalRepo, "core", "go.mod")); err != nil {
			ps = append(ps, Problem{"local_repo", fmt.Sprintf("%s is not a gobridge checkout (no core/go.mod)", m.LocalRepo)})
		} else {
			for i, p := range m.Plugins {
				rel, ok := strings.CutPrefix(p.Module, RepoModule+"/")
				if !ok || !known(p.Module) {
					continue
				}
				if _, err := os.Stat(filepath.Join(m.LocalRepo, filepath.FromSlash(rel), "go.mod")); err != nil {
					ps = append(ps, Problem{fmt.Sprintf("plugins[%d].module", i), fmt.Sprintf("%s has no go.mod under local_repo %s", rel, m.LocalRepo)})
				}
			}
		}
	}
	seen := map[string]int{}
	for i, r := range m.Replaces {
		field := fmt.Sprintf("replaces[%d]", i)
		old, _, _ := strings.Cut(r.Old, "@")
		switch {
		case r.Old == "":
			ps = append(ps, Problem{field + ".old", "is required"})
		case !validModule(old):
			ps = append(ps, Problem{field + ".old", fmt.Sprintf("%q is not a module path", r.Old)})
		default:
			if j, dup := seen[r.Old]; dup {
				ps = append(ps, Problem{field + ".old", fmt.Sprintf("%q is replaced already at replaces[%d]", r.Old, j)})
			}
			seen[r.Old] = i
		}
		if r.New == "" {
			ps = append(ps, Problem{field + ".new", "is required (a directory or module@version)"})
		} else if !isLocal(r.New) {
			if mod, v, ok := strings.Cut(r.New, "@"); !ok || !validModule(mod) || !versionRE.MatchString(v) {
				ps = append(ps, Problem{field + ".new", fmt.Sprintf("%q is neither a directory (./, ../ or absolute) nor module@version", r.New)})
			}
		}
	}
	return ps
}

// validModule reports whether p looks like a module path.
func validModule(p string) bool {
	if !moduleRE.MatchString(p) {
		return false
	}
	for _, el := range strings.Split(p, "/") {
		if el == "." || el == ".." || strings.HasPrefix(el, ".") || strings.HasSuffix(el, ".") {
			return false
		}
	}
	return true
}

// isLocal reports whether a replacement is a directory, as go.mod tells
// them apart.
func isLocal(p string) bool {
	return filepath.IsAbs(p) || p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")
}

// catalogueList is the catalogue in problem messages.
func catalogueList() string {
	return "(under " + RepoModule + "/) " + strings.Join(Catalogue, ", ")
}
