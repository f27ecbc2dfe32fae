package transform

import (
	"errors"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/google/go-cmp/cmp"
)

// problems lists the messages of the errors joined in err.
func problems(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		out = append(out, e.Error())
	}
	return out
}

func TestValidate(t *testing.T) {
	m := func(src, tgt string) FieldMapping { return FieldMapping{Source: src, Target: tgt} }
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"simple", Config{Mappings: []FieldMapping{m("$.a", "b")}}, nil},
		{"every option", Config{Name: "t", DropUnmapped: true, FailOnError: true, MaxPayloadBytes: 10, Mappings: []FieldMapping{
			{Source: "$.a[0].b.1", Target: "x.y", Transform: TransformInt, DefaultValue: 3, Required: true},
			{Source: "$", Target: "whole", Transform: TransformBase64Encode},
			{Source: "$.s", Target: "x.z", Transform: TransformBase64Decode, DefaultValue: map[string]any{"k": []any{1}}},
		}}, nil},
		{"every transform", Config{Mappings: []FieldMapping{
			TransformedMapping("$.a", "a", TransformString), TransformedMapping("$.a", "b", TransformInt),
			TransformedMapping("$.a", "c", TransformFloat), TransformedMapping("$.a", "d", TransformBool),
			TransformedMapping("$.a", "e", TransformBase64Encode), TransformedMapping("$.a", "f", TransformBase64Decode),
			TransformedMapping("$.a", "g", TransformNone),
		}}, nil},
		{"no mappings", Config{Name: "t"}, []string{`INVALID_CONFIG: transform "t": mappings: at least one mapping is required`}},
		{"sources", Config{Name: "t", Mappings: []FieldMapping{
			m("", "a"), m("user.name", "b"), m("$.", "c"), m("$..name", "d"), m("$.a.*", "e"),
			m("$.a[", "f"), m("$.a[01]", "g"), m("$.a[x]", "h"), m("$.a]b", "i"), m("$a", "j"),
			m("$.a["+strings.Repeat("9", 10)+"]", "k"), m("$"+strings.Repeat(".a", 129), "l"), m("$.\xff", "n"),
		}}, []string{
			`INVALID_CONFIG: transform "t": mappings[0].source: is required`,
			`INVALID_CONFIG: transform "t": mappings[1].source: "user.name" must start with $`,
			`INVALID_CONFIG: transform "t": mappings[2].source: empty segment in "$."`,
			`INVALID_CONFIG: transform "t": mappings[3].source: "$..name": wildcards and recursive descent are not supported`,
			`INVALID_CONFIG: transform "t": mappings[4].source: "$.a.*": wildcards and recursive descent are not supported`,
			`INVALID_CONFIG: transform "t": mappings[5].source: "$.a[": unterminated [`,
			`INVALID_CONFIG: transform "t": mappings[6].source: "$.a[01]": index [01] is not a non-negative integer of at most 9 digits without leading zeros`,
			`INVALID_CONFIG: transform "t": mappings[7].source: "$.a[x]": index [x] is not a non-negative integer of at most 9 digits without leading zeros`,
			`INVALID_CONFIG: transform "t": mappings[8].source: "$.a]b": unexpected character in segment "a]b"`,
			`INVALID_CONFIG: transform "t": mappings[9].source: "$a": expected . or [ after "$"`,
			`INVALID_CONFIG: transform "t": mappings[10].source: "$.a[9999999999]": index [9999999999] is not a non-negative integer of at most 9 digits without leading zeros`,
			`INVALID_CONFIG: transform "t": mappings[11].source: "$` + strings.Repeat(".a", 129) + `" has more than 128 segments`,
			`INVALID_CONFIG: transform "t": mappings[12].source: "$.\xff" is not valid UTF-8`,
		}},
		{"targets", Config{Name: "t", Mappings: []FieldMapping{
			m("$.a", ""), m("$.a", "$.b"), m("$.a", "a[0]"), m("$.a", "a..b"), m("$.a", ".a"), m("$.a", "a."),
			m("$.a", strings.Repeat("a.", 128)+"a"), m("$.a", "\xff"),
		}}, []string{
			`INVALID_CONFIG: transform "t": mappings[0].target: is required`,
			`INVALID_CONFIG: transform "t": mappings[1].target: "$.b" is dot notation such as user.name, not a JSONPath`,
			`INVALID_CONFIG: transform "t": mappings[2].target: "a[0]": array indexes are not supported in targets`,
			`INVALID_CONFIG: transform "t": mappings[3].target: empty segment in "a..b"`,
			`INVALID_CONFIG: transform "t": mappings[4].target: empty segment in ".a"`,
			`INVALID_CONFIG: transform "t": mappings[5].target: empty segment in "a."`,
			`INVALID_CONFIG: transform "t": mappings[6].target: "` + strings.Repeat("a.", 128) + `a" has more than 128 segments`,
			`INVALID_CONFIG: transform "t": mappings[7].target: "\xff" is not valid UTF-8`,
		}},
		{"target clashes", Config{Name: "t", Mappings: []FieldMapping{
			m("$.a", "out.x"), m("$.b", "out.x"), m("$.c", "out"), m("$.d", "out.x.deep"), m("$.e", "other"), m("$.f", "other.y"),
		}}, []string{
			`INVALID_CONFIG: transform "t": mappings[1].target: "out.x" is also the target of mappings[0]`,
			`INVALID_CONFIG: transform "t": mappings[2].target: "out" holds the targets of other mappings, for example mappings[0]`,
			`INVALID_CONFIG: transform "t": mappings[3].target: "out.x.deep" lies inside "out.x", the target of mappings[0]`,
			`INVALID_CONFIG: transform "t": mappings[5].target: "other.y" lies inside "other", the target of mappings[4]`,
		}},
		{"transform and default", Config{Mappings: []FieldMapping{
			{Source: "$.a", Target: "a", Transform: "integer"},
			{Source: "$.a", Target: "b", Transform: "INT"},
			{Source: "$.a", Target: "c", DefaultValue: func() {}},
			{Source: "$.a", Target: "d", DefaultValue: map[any]any{1: 2}},
		}}, []string{
			`INVALID_CONFIG: transform "transform": mappings[0].transform: "integer" is not one of string, int, float, bool, base64encode, base64decode`,
			`INVALID_CONFIG: transform "transform": mappings[1].transform: "INT" is not one of string, int, float, bool, base64encode, base64decode`,
			`INVALID_CONFIG: transform "transform": mappings[2].default: cannot be written as JSON: json: unsupported type: func()`,
			`INVALID_CONFIG: transform "transform": mappings[3].default: cannot be written as JSON: json: unsupported type: map[interface {}]interface {}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if diff := cmp.Diff(tt.want, problems(err)); diff != "" {
				t.Fatalf("problems (-want +got):\n%s", diff)
			}
			if err != nil {
				for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
					if !errors.Is(e, fault.ErrInvalidConfig) || fault.ClassOf(e) != fault.ClassPermanent {
						t.Errorf("%v is not INVALID_CONFIG", e)
					}
				}
			}
			if _, nerr := New(tt.cfg); (nerr == nil) != (err == nil) {
				t.Errorf("New error %v disagrees with Validate %v", nerr, err)
			}
		})
	}
}

func TestWithDefaults(t *testing.T) {
	tests := []struct{ in, want Config }{
		{Config{}, Config{Name: DefaultName, MaxPayloadBytes: DefaultMaxPayloadBytes}},
		{Config{MaxPayloadBytes: -3}, Config{Name: DefaultName, MaxPayloadBytes: DefaultMaxPayloadBytes}},
		{Config{Name: "x", MaxPayloadBytes: 5, DropUnmapped: true, FailOnError: true},
			Config{Name: "x", MaxPayloadBytes: 5, DropUnmapped: true, FailOnError: true}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.in.WithDefaults()); diff != "" {
			t.Errorf("WithDefaults (-want +got):\n%s", diff)
		}
	}
	if DefaultName != "transform" || DefaultMaxPayloadBytes != 1<<20 {
		t.Errorf("defaults changed: %q %d", DefaultName, DefaultMaxPayloadBytes)
	}
	tr := mustNew(t, Config{Mappings: []FieldMapping{SimpleMapping("$.a", "b")}})
	if tr.Name() != DefaultName {
		t.Errorf("Name() = %q", tr.Name())
	}
}

func TestMappingHelpers(t *testing.T) {
	got := []FieldMapping{SimpleMapping("$.a", "b"), TransformedMapping("$.c", "d", TransformFloat)}
	want := []FieldMapping{{Source: "$.a", Target: "b"}, {Source: "$.c", Target: "d", Transform: TransformFloat}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
