package transform

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// TransformType names the conversion a mapping applies to its value.
type TransformType string

// The conversions. The empty TransformType copies the value unchanged.
// A JSON null stays null under every conversion.
const (
	// TransformNone copies the value as it is.
	TransformNone TransformType = ""
	// TransformString makes a string: strings stay, numbers keep their
	// exact digits ("1.50" for 1.50), booleans become "true"/"false", and
	// arrays and objects become their compact JSON text.
	TransformString TransformType = "string"
	// TransformInt makes an integer in the int64 range from a number or a
	// string holding a JSON number, provided it has no fractional part
	// (2.0 and 1e3 qualify, 2.5 does not); true and false become 1 and 0.
	TransformInt TransformType = "int"
	// TransformFloat makes a 64-bit floating-point number from a number or
	// a string holding a JSON number; true and false become 1 and 0. This
	// is the one conversion that may round.
	TransformFloat TransformType = "float"
	// TransformBool makes a boolean from a boolean, the number 0 or 1, or
	// a string strconv.ParseBool accepts ("true", "false", "1", "0", "t",
	// "F"...).
	TransformBool TransformType = "bool"
	// TransformBase64Encode makes the standard, padded base64 encoding of
	// a string's text, or of the compact JSON text of any other value.
	TransformBase64Encode TransformType = "base64encode"
	// TransformBase64Decode decodes a base64 string (standard or URL
	// alphabet, padded or not) whose decoded bytes are UTF-8 text, and
	// makes a string of that text.
	TransformBase64Decode TransformType = "base64decode"
)

func (t TransformType) valid() bool {
	switch t {
	case TransformNone, TransformString, TransformInt, TransformFloat, TransformBool,
		TransformBase64Encode, TransformBase64Decode:
		return true
	}
	return false
}

// Defaults applied by Config.WithDefaults.
const (
	// DefaultName is the processor name used when Config.Name is empty.
	DefaultName = "transform"
	// DefaultMaxPayloadBytes is the payload cap used when
	// Config.MaxPayloadBytes is zero or negative: 1 MiB.
	DefaultMaxPayloadBytes = 1 << 20
)

// FieldMapping copies one value of the input to one field of the output.
type FieldMapping struct {
	// Source is a JSONPath into the input: $ for the whole document, then
	// .name for an object member and [n] or .n for array element n, for
	// example $.user.name or $.order.lines[0].sku. A segment of digits
	// also selects an object member of that name.
	Source string `yaml:"source" json:"source"`
	// Target is the output field in dot notation, for example
	// output.username. Missing parent objects are created.
	Target string `yaml:"target" json:"target"`
	// Transform is the conversion to apply; empty keeps the value as it is.
	Transform TransformType `yaml:"transform,omitempty" json:"transform,omitempty"`
	// DefaultValue is written to Target, as configured and without
	// conversion, when Source is not found. Nil means no default.
	DefaultValue any `yaml:"default,omitempty" json:"default,omitempty"`
	// Required fails the message when the mapping cannot be written: the
	// source is missing and there is no default, the conversion fails, or
	// the target is blocked by a value that is not an object.
	Required bool `yaml:"required,omitempty" json:"required,omitempty"`
}

// SimpleMapping returns a mapping that copies source to target unchanged.
func SimpleMapping(source, target string) FieldMapping {
	return FieldMapping{Source: source, Target: target}
}

// TransformedMapping returns a mapping that copies source to target with
// the conversion t.
func TransformedMapping(source, target string, t TransformType) FieldMapping {
	return FieldMapping{Source: source, Target: target, Transform: t}
}

// Config declares a transform processor. At least one mapping is required.
type Config struct {
	// Name identifies the processor instance in metrics, logs and errors.
	// Empty selects DefaultName.
	Name string `yaml:"name" json:"name"`
	// Mappings are the field rules, applied in order.
	Mappings []FieldMapping `yaml:"mappings" json:"mappings"`
	// DropUnmapped makes the output hold only the mapped targets. When
	// false the input object is kept and the targets are written on top.
	DropUnmapped bool `yaml:"drop_unmapped,omitempty" json:"drop_unmapped,omitempty"`
	// FailOnError fails the message when any mapping's conversion fails or
	// its target is blocked; when false such a mapping is skipped.
	FailOnError bool `yaml:"fail_on_error,omitempty" json:"fail_on_error,omitempty"`
	// MaxPayloadBytes is the largest payload accepted. Zero or negative
	// selects DefaultMaxPayloadBytes.
	MaxPayloadBytes int `yaml:"max_payload_bytes,omitempty" json:"max_payload_bytes,omitempty"`
}

// WithDefaults returns c with its defaults filled in: the name and the
// payload cap.
func (c Config) WithDefaults() Config {
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.MaxPayloadBytes <= 0 {
		c.MaxPayloadBytes = DefaultMaxPayloadBytes
	}
	return c
}

// Validate reports every problem of c at once, joined with errors.Join.
// Each problem is an INVALID_CONFIG fault.BridgeError whose message names
// the processor and the field, for example
// `transform "t": mappings[2].target: empty segment in "a..b"`.
func (c Config) Validate() error {
	_, err := c.compile()
	return err
}

// compiled is a validated configuration ready for use.
type compiled struct {
	sources *pnode   // trie of source paths
	slots   int      // number of distinct source paths
	targets *tnode   // trie of target paths
	nodes   int      // number of target trie nodes
	maps    []cmap   // one per mapping, in order
	keyLen  int      // total length of the quoted target keys
	srcs    []string // Source of each mapping, for error messages
}

// cmap is one compiled mapping.
type cmap struct {
	slot     int
	conv     TransformType
	def      []byte // JSON text of DefaultValue; nil when unset
	required bool
	target   *tnode
}

func (c Config) compile() (*compiled, error) {
	c = c.WithDefaults()
	var errs []error
	bad := func(field, format string, args ...any) {
		msg := fmt.Sprintf("transform %q: %s: %s", c.Name, field, fmt.Sprintf(format, args...))
		errs = append(errs, fault.ErrInvalidConfig.WithMessage(msg).With("processor", c.Name))
	}
	if len(c.Mappings) == 0 {
		bad("mappings", "at least one mapping is required")
	}
	cc := &compiled{sources: newPnode("", -1), targets: &tnode{mapping: -1}, nodes: 1}
	for i, m := range c.Mappings {
		at := fmt.Sprintf("mappings[%d]", i)
		cm := cmap{conv: m.Transform, required: m.Required}
		segs, err := parseSource(m.Source)
		if err != nil {
			bad(at+".source", "%v", err)
		} else {
			cm.slot = cc.addSource(segs)
		}
		keys, err := parseTarget(m.Target)
		if err != nil {
			bad(at+".target", "%v", err)
		} else if n, err := cc.addTarget(keys, i); err != nil {
			bad(at+".target", "%v", err)
		} else {
			cm.target = n
		}
		if !m.Transform.valid() {
			bad(at+".transform", "%q is not one of string, int, float, bool, base64encode, base64decode", m.Transform)
		}
		if m.DefaultValue != nil {
			def, err := json.Marshal(m.DefaultValue)
			if err != nil {
				bad(at+".default", "cannot be written as JSON: %v", err)
			}
			cm.def = compact(nil, def)
		}
		cc.maps = append(cc.maps, cm)
		cc.srcs = append(cc.srcs, m.Source)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return cc, nil
}
