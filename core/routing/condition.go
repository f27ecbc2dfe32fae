package routing

import (
	"fmt"
	"strings"
)

// Operator names a comparison made by a Condition.
type Operator string

// The operators. Unless stated otherwise an operator is false when the
// field is missing (see the package documentation).
const (
	// OpEq is true when the field deeply equals the value: strings exactly,
	// numbers by numeric value, booleans, null, and arrays and objects
	// element by element.
	OpEq Operator = "eq"
	// OpNe is the negation of OpEq. It is true when the field is missing.
	OpNe Operator = "ne"
	// OpPrefix is true when the field is a string starting with the value,
	// which must be a string.
	OpPrefix Operator = "prefix"
	// OpContains is true when the field is a string containing the value,
	// which must be a string.
	OpContains Operator = "contains"
	// OpRegex is true when the field is a string matched by the value, a
	// regular expression (RE2 syntax, at most MaxRegexLength characters). The
	// expression is unanchored; use ^ and $ to anchor it.
	OpRegex Operator = "regex"
	// OpGt is true when the field is a number greater than the value,
	// which must be a number.
	OpGt Operator = "gt"
	// OpLt is true when the field is a number less than the value.
	OpLt Operator = "lt"
	// OpGte is true when the field is a number greater than or equal to
	// the value.
	OpGte Operator = "gte"
	// OpLte is true when the field is a number less than or equal to the
	// value.
	OpLte Operator = "lte"
	// OpExists tests presence. The value is a boolean; nil means true.
	// With false it is true exactly when the field is missing.
	OpExists Operator = "exists"
	// OpIn is true when the field equals (as OpEq) any element of the
	// value, which must be a list.
	OpIn Operator = "in"
)

// MaxRegexLength is the longest regular expression, in characters, that OpRegex
// accepts.
const MaxRegexLength = 4096

// maxPathSegments bounds the depth of a JSON path.
const maxPathSegments = 128

// maxIndexDigits bounds the digits of an array index in a path.
const maxIndexDigits = 9

// Condition is one test of a message. Conditions are combined with AND by
// Compile.
type Condition struct {
	// Field selects what is tested; see the package documentation.
	Field string `yaml:"field" json:"field"`
	// Operator is the comparison to make.
	Operator Operator `yaml:"operator" json:"operator"`
	// Value is what the field is compared against. Its required type
	// depends on Operator.
	Value any `yaml:"value,omitempty" json:"value,omitempty"`
}

func (op Operator) valid() bool {
	switch op {
	case OpEq, OpNe, OpPrefix, OpContains, OpRegex, OpGt, OpLt, OpGte, OpLte, OpExists, OpIn:
		return true
	}
	return false
}

func (op Operator) numeric() bool {
	return op == OpGt || op == OpLt || op == OpGte || op == OpLte
}

// fieldKind says where a condition reads its field from.
type fieldKind uint8

const (
	fieldSubject fieldKind = iota + 1
	fieldHeader
	fieldJSON
)

// segment is one step of a JSON path. key is the member name; idx is the
// array index the segment also selects, or -1.
type segment struct {
	key string
	idx int
}

// parseField splits a condition field into its kind, the header name, and
// for payload fields the path segments.
func parseField(f string) (fieldKind, string, []segment, error) {
	switch {
	case f == "subject":
		return fieldSubject, "", nil, nil
	case strings.HasPrefix(f, "header."):
		name := f[len("header."):]
		if name == "" {
			return 0, "", nil, fmt.Errorf("field %q names no header", f)
		}
		return fieldHeader, name, nil, nil
	case strings.HasPrefix(f, "$"):
		segs, err := parsePath(f)
		if err != nil {
			return 0, "", nil, fmt.Errorf("field %q is not a valid JSON path: %w", f, err)
		}
		return fieldJSON, "", segs, nil
	default:
		return fieldHeader, f, nil, nil
	}
}

// parsePath parses "$.a.b[0].1" into segments.
func parsePath(p string) ([]segment, error) {
	rest := p[1:] // drop "$"
	if rest == "" {
		return nil, fmt.Errorf("path selects no member; use $.<name>")
	}
	var segs []segment
	for rest != "" {
		if rest[0] == '.' {
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			name := rest[:end]
			if name == "" {
				return nil, fmt.Errorf("empty path segment")
			}
			if strings.ContainsRune(name, ']') {
				return nil, fmt.Errorf("unexpected ']' in segment %q", name)
			}
			segs = append(segs, segment{key: name, idx: indexOf(name)})
			rest = rest[end:]
			continue
		}
		if rest[0] != '[' {
			return nil, fmt.Errorf("expected '.' or '[' after %q", p[:len(p)-len(rest)])
		}
		// Bracketed index.
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return nil, fmt.Errorf("unterminated '['")
		}
		digits := rest[1:end]
		i := indexOf(digits)
		if i < 0 {
			return nil, fmt.Errorf("index %q is not a non-negative integer of at most %d digits without leading zeros", digits, maxIndexDigits)
		}
		segs = append(segs, segment{key: digits, idx: i})
		rest = rest[end+1:]
	}
	if len(segs) > maxPathSegments {
		return nil, fmt.Errorf("path has more than %d segments", maxPathSegments)
	}
	return segs, nil
}

// indexOf returns the array index that s spells, or -1 when s is not a
// canonical non-negative integer.
func indexOf(s string) int {
	if s == "" || len(s) > maxIndexDigits || (s[0] == '0' && len(s) > 1) {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}
