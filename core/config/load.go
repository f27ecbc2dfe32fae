package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"

	yamlparser "github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
)

// DefaultEnvPrefix is the prefix of environment overrides.
const DefaultEnvPrefix = "GOBRIDGE_"

// Option adjusts Load and Parse.
type Option func(*options)

type options struct {
	environ   []string
	envSet    bool
	prefix    string
	readFile  func(string) ([]byte, error)
	hostname  func() (string, error)
	noDefault bool

	// restrictRefs limits references to allowedRefs (WithAllowedRefs).
	restrictRefs bool
	allowedRefs  map[string]bool
	// resolved collects the values references resolved to, for Scrub.
	resolved []string
	// partial returns the File beside decoding problems (WithPartial).
	partial bool
	// warns collects the risks seen while loading, for File.loadWarnings.
	warns []Warning
}

func buildOptions(opts []Option) *options {
	o := &options{prefix: DefaultEnvPrefix, readFile: defaultReadFile, hostname: os.Hostname}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	if !o.envSet {
		o.environ = os.Environ()
	}
	return o
}

// WithEnv sets the environment that overrides and ${env:} references read,
// as "KEY=value" strings. The default is os.Environ().
func WithEnv(environ []string) Option {
	return func(o *options) { o.environ, o.envSet = environ, true }
}

// WithEnvPrefix sets the prefix of override variables (GOBRIDGE_). An empty
// prefix disables overrides.
func WithEnvPrefix(prefix string) Option {
	return func(o *options) { o.prefix = prefix }
}

// WithReadFile sets how the configuration file and ${file:} references are
// read. The default is os.ReadFile.
func WithReadFile(read func(name string) ([]byte, error)) Option {
	return func(o *options) {
		if read != nil {
			o.readFile = read
		}
	}
}

// WithFS reads the configuration file and ${file:} references from fsys;
// a leading "/" of a path is removed, as fs.FS paths are unrooted.
func WithFS(fsys fs.FS) Option {
	return WithReadFile(func(name string) ([]byte, error) {
		return fs.ReadFile(fsys, strings.TrimPrefix(name, "/"))
	})
}

// WithHostname sets how the default Bridge.InstanceID is found (os.Hostname).
func WithHostname(hostname func() (string, error)) Option {
	return func(o *options) {
		if hostname != nil {
			o.hostname = hostname
		}
	}
}

// WithoutDefaults leaves unset fields at their zero value, which is what
// the configuration API shows as "as written".
func WithoutDefaults() Option {
	return func(o *options) { o.noDefault = true }
}

// WithPartial makes Load and Parse return, beside the Problems of a
// document that does not decode, the File as far as it decoded, with its
// defaults: a value that did not decode is left at its zero value and an
// unknown key is skipped. A validate command runs Validate on it and
// reports both rounds at once with JoinProblems, so that an unknown key
// does not hide a bad reference. The File is nil when the document is not
// YAML or cannot be read. Never build a bridge from a partial File.
func WithPartial() Option {
	return func(o *options) { o.partial = true }
}

// Load reads the YAML file at path and returns it decoded, with environment
// overrides and secrets applied and defaults filled in. Every decoding
// problem is reported at once, as Problems. Load does not run Validate.
func Load(path string, opts ...Option) (*File, error) {
	o := buildOptions(opts)
	data, err := o.readFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	return parse(data, o)
}

// Parse is Load for a configuration already in memory.
func Parse(data []byte, opts ...Option) (*File, error) {
	return parse(data, buildOptions(opts))
}

func parse(data []byte, o *options) (f *File, err error) {
	k := koanf.New("\x1f") // a delimiter no key uses, so dotted keys stay whole
	if err := k.Load(rawbytes.Provider(data), yamlparser.Parser()); err != nil {
		return nil, &Problems{{Message: "invalid YAML: " + yamlMessage(err)}}
	}
	root := k.Raw()
	probs := &problems{}
	if o.prefix != "" {
		env, err := readEnv(o.prefix, o.environ)
		if err != nil {
			return nil, fmt.Errorf("config: environment: %w", err)
		}
		applyEnv(root, o.prefix, env, probs)
	}
	resolveSecrets(root, "", o, probs)
	f = &File{secrets: map[string]bool{}}
	d := &decoder{probs: probs, secrets: f.secrets}
	d.structure("", root, reflect.ValueOf(f).Elem())
	scrubProblems(o.resolved, probs.list)
	err = probs.err()
	if err != nil && !o.partial {
		return nil, err
	}
	f.secretValues = o.resolved
	f.loadWarnings = o.warns
	if !o.noDefault {
		f.applyDefaults(o)
	}
	return f, err
}

// yamlMessage shortens a YAML parser error.
func yamlMessage(err error) string {
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
		err = u
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}
