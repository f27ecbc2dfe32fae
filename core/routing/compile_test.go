package routing

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/google/go-cmp/cmp"
)

func TestCompileErrors(t *testing.T) {
	long := strings.Repeat("a", MaxRegexLength+1)
	cases := []struct {
		name  string
		conds []Condition
		want  []string
	}{
		{"missing field", []Condition{{Operator: OpEq, Value: "x"}},
			[]string{"INVALID_CONFIG: conditions[0]: field is required"}},
		{"invalid operator", []Condition{{Field: "subject", Operator: OpEq, Value: 1}, {Field: "subject", Operator: "foo"}},
			[]string{`INVALID_CONFIG: conditions[1]: operator "foo" is invalid`}},
		{"missing operator", []Condition{{Field: "subject"}},
			[]string{"INVALID_CONFIG: conditions[0]: operator is required"}},
		{"field and operator", []Condition{{Operator: "bad"}},
			[]string{"INVALID_CONFIG: conditions[0]: field is required", `INVALID_CONFIG: conditions[0]: operator "bad" is invalid`}},
		{"regex too long", []Condition{{Field: "subject", Operator: OpRegex, Value: long}},
			[]string{"INVALID_CONFIG: conditions[0]: regex pattern exceeds maximum length of 4096 characters"}},
		{"regex invalid", []Condition{{Field: "subject", Operator: OpRegex, Value: "a("}},
			[]string{"INVALID_CONFIG: conditions[0]: invalid regex pattern: error parsing regexp: missing closing ): `a(`"}},
		{"regex not string", []Condition{{Field: "subject", Operator: OpRegex, Value: 5}},
			[]string{`INVALID_CONFIG: conditions[0]: operator "regex" requires a string value, got number`}},
		{"gt with string", []Condition{{Field: "x", Operator: OpGt, Value: "5"}},
			[]string{`INVALID_CONFIG: conditions[0]: operator "gt" requires a numeric value, got string`}},
		{"lte with null", []Condition{{Field: "x", Operator: OpLte}},
			[]string{`INVALID_CONFIG: conditions[0]: operator "lte" requires a numeric value, got null`}},
		{"in with scalar", []Condition{{Field: "x", Operator: OpIn, Value: "a"}},
			[]string{`INVALID_CONFIG: conditions[0]: operator "in" requires a list value, got string`}},
		{"prefix with number", []Condition{{Field: "x", Operator: OpPrefix, Value: 1}},
			[]string{`INVALID_CONFIG: conditions[0]: operator "prefix" requires a string value, got number`}},
		{"contains with list", []Condition{{Field: "x", Operator: OpContains, Value: []any{"a"}}},
			[]string{`INVALID_CONFIG: conditions[0]: operator "contains" requires a string value, got list`}},
		{"exists with string", []Condition{{Field: "x", Operator: OpExists, Value: "yes"}},
			[]string{`INVALID_CONFIG: conditions[0]: operator "exists" requires a boolean value, got string`}},
		{"unsupported value", []Condition{{Field: "x", Operator: OpEq, Value: make(chan int)}},
			[]string{"INVALID_CONFIG: conditions[0]: value: value of type chan int is not supported"}},
		{"non-finite value", []Condition{{Field: "x", Operator: OpGt, Value: math.Inf(1)}},
			[]string{"INVALID_CONFIG: conditions[0]: value: number +Inf is not finite"}},
		{"empty header", []Condition{{Field: "header.", Operator: OpExists}},
			[]string{`INVALID_CONFIG: conditions[0]: field "header." names no header`}},
		{"bare dollar", []Condition{{Field: "$", Operator: OpExists}},
			[]string{`INVALID_CONFIG: conditions[0]: field "$" is not a valid JSON path: path selects no member; use $.<name>`}},
		{"empty segment", []Condition{{Field: "$.a..b", Operator: OpExists}},
			[]string{`INVALID_CONFIG: conditions[0]: field "$.a..b" is not a valid JSON path: empty path segment`}},
		{"bad index", []Condition{{Field: "$.a[x]", Operator: OpExists}},
			[]string{`INVALID_CONFIG: conditions[0]: field "$.a[x]" is not a valid JSON path: index "x" is not a non-negative integer of at most 9 digits without leading zeros`}},
		{"unterminated index", []Condition{{Field: "$.a[1", Operator: OpExists}},
			[]string{`INVALID_CONFIG: conditions[0]: field "$.a[1" is not a valid JSON path: unterminated '['`}},
		{"junk after index", []Condition{{Field: "$.a[1]b", Operator: OpExists}},
			[]string{`INVALID_CONFIG: conditions[0]: field "$.a[1]b" is not a valid JSON path: expected '.' or '[' after "$.a[1]"`}},
		{"dollar name", []Condition{{Field: "$a", Operator: OpExists}},
			[]string{`INVALID_CONFIG: conditions[0]: field "$a" is not a valid JSON path: expected '.' or '[' after "$"`}},
		{"several", []Condition{{Field: "x", Operator: OpGt, Value: "1"}, {Field: "y", Operator: OpEq}, {Field: "", Operator: OpIn, Value: 1}},
			[]string{
				`INVALID_CONFIG: conditions[0]: operator "gt" requires a numeric value, got string`,
				"INVALID_CONFIG: conditions[2]: field is required",
				`INVALID_CONFIG: conditions[2]: operator "in" requires a list value, got number`,
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Compile(c.conds)
			if m != nil {
				t.Error("matcher returned with an error")
			}
			if d := cmp.Diff(c.want, errorTexts(err)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
			if !errors.Is(err, fault.ErrInvalidConfig) {
				t.Errorf("error %v is not INVALID_CONFIG", err)
			}
			if fault.ClassOf(err) != fault.ClassPermanent {
				t.Errorf("class %v", fault.ClassOf(err))
			}
		})
	}
}

func TestCompileRegexCauseIsKept(t *testing.T) {
	_, err := Compile([]Condition{{Field: "subject", Operator: OpRegex, Value: "["}})
	var be *fault.BridgeError
	if !errors.As(err, &be) || be.Unwrap() == nil {
		t.Fatalf("want a wrapped regexp error, got %v", err)
	}
}

func TestCompileAcceptsValueShapes(t *testing.T) {
	type myString string
	values := []any{
		nil, true, "s", []byte("b"), 1, int8(1), int16(1), int32(1), int64(1),
		uint(1), uint8(1), uint16(1), uint32(1), uint64(1), float32(1), 1.5,
		myString("x"), []int{1, 2}, [2]string{"a", "b"},
		map[string]any{"a": 1}, map[any]any{"a": []any{1}}, map[string]int{"a": 1},
	}
	for _, v := range values {
		if _, err := Compile([]Condition{{Field: "x", Operator: OpEq, Value: v}}); err != nil {
			t.Errorf("%T: %v", v, err)
		}
	}
	if _, err := Compile([]Condition{{Field: "x", Operator: OpEq, Value: map[any]any{1: 2}}}); err == nil {
		t.Error("non-string map keys must be refused")
	}
	cyclic := []any{nil}
	cyclic[0] = cyclic
	if _, err := Compile([]Condition{{Field: "x", Operator: OpEq, Value: cyclic}}); err == nil {
		t.Error("self-referencing value must be refused")
	}
}

func TestMatcherWithRegexMaxLength(t *testing.T) {
	// Exactly MaxRegexLength characters (multi-byte) is accepted.
	p := strings.Repeat("é", MaxRegexLength)
	if _, err := Compile([]Condition{{Field: "subject", Operator: OpRegex, Value: p}}); err != nil {
		t.Fatal(err)
	}
}
