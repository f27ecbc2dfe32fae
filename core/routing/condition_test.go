package routing

import (
	"fmt"
	"testing"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/google/go-cmp/cmp"
)

type condCase struct {
	field string
	op    Operator
	value any
	want  bool
}

func runCondCases(t *testing.T, env *messaging.Envelope, cases []condCase) {
	t.Helper()
	got := map[string]bool{}
	want := map[string]bool{}
	for _, c := range cases {
		name := fmt.Sprintf("%s %s %#v", c.field, c.op, c.value)
		ok, err := matchOne(env, Condition{Field: c.field, Operator: c.op, Value: c.value})
		if err != nil {
			t.Errorf("%s: compile: %v", name, err)
			continue
		}
		got[name] = ok
		want[name] = c.want
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
}

func TestOperatorsOnSubject(t *testing.T) {
	runCondCases(t, testEnv(), []condCase{
		{"subject", OpEq, "orders.created.eu", true},
		{"subject", OpEq, "orders", false},
		{"subject", OpNe, "orders", true},
		{"subject", OpNe, "orders.created.eu", false},
		{"subject", OpPrefix, "orders.", true},
		{"subject", OpPrefix, "created", false},
		{"subject", OpContains, "created", true},
		{"subject", OpContains, "deleted", false},
		{"subject", OpRegex, `^orders\.[a-z]+\.eu$`, true},
		{"subject", OpRegex, `^eu`, false},
		{"subject", OpGt, 1, false}, // not numeric text
		{"subject", OpExists, nil, true},
		{"subject", OpExists, false, false},
		{"subject", OpIn, []any{"x", "orders.created.eu"}, true},
		{"subject", OpIn, []any{"x", "y"}, false},
	})
}

func TestOperatorsOnHeaders(t *testing.T) {
	runCondCases(t, testEnv(), []condCase{
		// header.<key> and bare names are the same lookup.
		{"header.x-tenant", OpEq, "acme", true},
		{"x-tenant", OpEq, "acme", true},
		{"x-tenant", OpEq, "ACME", false},
		{"header.subject", OpEq, "header-named-subject", true},
		{"x-tenant", OpNe, "globex", true},
		{"x-tenant", OpPrefix, "ac", true},
		{"x-tenant", OpContains, "cm", true},
		{"x-tenant", OpRegex, "^a.m", true},
		{"x-tenant", OpIn, []string{"globex", "acme"}, true},
		// Numeric text in headers compares with numbers.
		{"x-priority", OpEq, 7, true},
		{"x-priority", OpEq, 7.0, true},
		{"x-priority", OpEq, "7", true},
		{"x-priority", OpGt, 3, true},
		{"x-priority", OpGte, 7, true},
		{"x-priority", OpLt, 7, false},
		{"x-priority", OpLte, 7.5, true},
		{"x-priority", OpIn, []any{1, 7}, true},
		{"x-numstr", OpEq, 100, true},
		// Go numbers in headers.
		{"x-count", OpEq, 42, true},
		{"x-count", OpEq, 42.0, true},
		{"x-count", OpEq, "42", false}, // a configured string wants a string
		{"x-count", OpGt, 41.5, true},
		{"x-count", OpLt, 41.5, false},
		{"x-count", OpPrefix, "4", false}, // not a string
		{"x-float", OpEq, 2.5, true},
		{"x-float", OpGt, 2, true},
		{"x-f32", OpEq, 0.1, true},
		{"x-big", OpEq, uint64(18446744073709551615), true},
		{"x-big", OpGt, 1e19, true},
		{"x-int64", OpEq, int64(9007199254740993), true},
		{"x-int64", OpEq, int64(9007199254740992), false},
		{"x-nan", OpEq, 1, false},
		{"x-nan", OpGt, 1, false},
		{"x-nan", OpNe, 1, true},
		{"x-inf", OpGt, 1e300, true},
		{"x-inf", OpLt, 0, false},
		// Booleans, null, bytes.
		{"x-bool", OpEq, true, true},
		{"x-bool", OpEq, "true", false},
		{"x-nil", OpEq, nil, true},
		{"x-nil", OpExists, true, true},
		{"x-bytes", OpEq, "blob-data", true},
		{"x-bytes", OpPrefix, "blob", true},
		{"x-bytes", OpContains, "b-d", true},
		{"x-bytes", OpRegex, "data$", true},
		// Composite header values.
		{"x-list", OpEq, []any{"a", 1}, true},
		{"x-list", OpEq, []any{"a", 2}, false},
		{"x-strs", OpEq, []string{"a", "b"}, true},
		{"x-map", OpEq, map[string]any{"k": "v"}, true},
		{"x-smap", OpEq, map[string]any{"k": "v"}, true},
		{"x-smap", OpEq, map[string]any{"k": "w"}, false},
		{"x-map", OpContains, "k", false},
		{"x-struct", OpEq, map[string]any{"A": 1}, false},
		{"x-struct", OpNe, 1, true},
		{"x-struct", OpExists, nil, true},
		// Missing header: false except ne and exists:false.
		{"x-missing", OpEq, "a", false},
		{"x-missing", OpNe, "a", true},
		{"x-missing", OpPrefix, "a", false},
		{"x-missing", OpContains, "a", false},
		{"x-missing", OpRegex, ".*", false},
		{"x-missing", OpGt, 1, false},
		{"x-missing", OpLt, 1, false},
		{"x-missing", OpGte, 1, false},
		{"x-missing", OpLte, 1, false},
		{"x-missing", OpIn, []any{"a"}, false},
		{"x-missing", OpExists, nil, false},
		{"x-missing", OpExists, true, false},
		{"x-missing", OpExists, false, true},
		{"x-missing", OpEq, nil, false},
	})
}

func TestOperatorsOnPayload(t *testing.T) {
	runCondCases(t, testEnv(), []condCase{
		{"$.order.id", OpEq, "o-1", true},
		{"$.order.id", OpNe, "o-2", true},
		{"$.order.id", OpPrefix, "o-", true},
		{"$.order.id", OpContains, "-1", true},
		{"$.order.id", OpRegex, `^o-\d$`, true},
		{"$.order.id", OpIn, []any{"o-1"}, true},
		{"$.order.id", OpExists, nil, true},
		{"$.order.total", OpEq, 99.5, true},
		{"$.order.total", OpGt, 99, true},
		{"$.order.total", OpLt, 100, true},
		{"$.order.total", OpGte, 99.5, true},
		{"$.order.total", OpLte, 99.4, false},
		{"$.order.qty", OpEq, 3, true},
		{"$.order.qty", OpEq, "3", false},
		{"$.order.qty", OpPrefix, "3", false},
		// Arrays: dotted and bracketed indexes.
		{"$.order.tags.1", OpEq, "b", true},
		{"$.order.tags[0]", OpEq, "a", true},
		{"$.order.tags[2]", OpExists, false, true},
		{"$.order.lines[1].sku", OpEq, "Y2", true},
		{"$.order.lines.0.n", OpGt, 1, true},
		{"$.order.tags", OpEq, []any{"a", "b"}, true},
		{"$.order.tags", OpEq, []any{"b", "a"}, false},
		{"$.order.tags", OpContains, "a", false},
		{"$.arr", OpEq, []any{1, "two", nil, true, map[string]any{"x": 1}}, true},
		{"$.arr", OpEq, []any{1, "two", nil, true, map[string]any{"x": 2}}, false},
		{"$.arr[4].x", OpEq, 1, true},
		{"$.obj", OpEq, map[string]any{"a": []any{1, "x"}, "b": 2}, true},
		{"$.obj", OpEq, map[string]any{"a": []any{1, "x"}}, false},
		{"$.obj", OpIn, []any{"x", map[string]any{"b": 2, "a": []any{1, "x"}}}, true},
		// Numbers.
		{"$.big", OpEq, int64(9007199254740993), true},
		{"$.big", OpEq, int64(9007199254740992), false},
		{"$.big", OpGt, int64(9007199254740992), true},
		{"$.big", OpEq, 9007199254740992.0, false},
		{"$.neg", OpLt, 0, true},
		{"$.neg", OpEq, -12.5, true},
		{"$.zero", OpEq, 0, true},
		{"$.zero", OpGt, -1, true},
		{"$.exp", OpEq, 1500, true},
		{"$.exp", OpEq, "1500", false},
		{"$.num_str", OpEq, "42", true},
		{"$.num_str", OpEq, 42, false}, // payload strings keep their type
		{"$.num_str", OpGt, 1, false},
		// Booleans and null.
		{"$.flag", OpEq, true, true},
		{"$.flag", OpEq, false, false},
		{"$.off", OpEq, false, true},
		{"$.off", OpNe, true, true},
		{"$.nothing", OpEq, nil, true},
		{"$.nothing", OpExists, nil, true},
		{"$.nothing", OpNe, nil, false},
		{"$.flag", OpEq, nil, false},
		// Escapes and odd keys.
		{"$.esc", OpEq, "café 😀 \"q\"\\/\n", true},
		{"$.esc", OpPrefix, "café", true},
		{"$.esc", OpContains, "😀", true},
		{"$.uA", OpEq, "escaped-key", true},
		{"$.0", OpEq, "zero-key", true},
		{"$[0]", OpEq, "zero-key", true},
		{"$.dot.1", OpEq, "one", true},
		{"$.dot[1]", OpEq, "one", true},
		{"$.empty", OpEq, "", true},
		{"$.empty", OpExists, nil, true},
		{"$.text", OpRegex, `\bworld$`, true},
		// Missing paths.
		{"$.order.missing", OpEq, "x", false},
		{"$.order.missing", OpNe, "x", true},
		{"$.order.missing", OpExists, false, true},
		{"$.order.missing", OpExists, true, false},
		{"$.order.id.deeper", OpExists, nil, false},
		{"$.text[0]", OpExists, nil, false},
		{"$.order.lines[7].sku", OpNe, "x", true},
		{"$.order.missing", OpGt, 0, false},
		{"$.order.missing", OpIn, []any{nil}, false},
	})
}

func TestNonJSONPayloadIsMissing(t *testing.T) {
	payloads := map[string]string{
		"empty":          "",
		"text":           "hello world",
		"truncated":      testPayload[:len(testPayload)/2],
		"trailing":       `{"a":"x"} {"a":"y"}`,
		"bad escape":     `{"a":"x\q"}`,
		"control char":   "{\"a\":\"x\ty\"}",
		"bad number":     `{"a":"x","b":01}`,
		"bad literal":    `{"a":"x","b":tru}`,
		"missing comma":  `{"a":"x" "b":1}`,
		"trailing comma": `{"a":"x",}`,
		"unclosed":       `{"a":"x"`,
		"binary":         "\x00\x01\x02{",
		"bom":            "\xef\xbb\xbf{\"a\":\"x\"}",
		"mismatched":     `{"a":"x","b":[1}`,
	}
	for name, p := range payloads {
		env := messaging.NewEnvelope("s", []byte(p))
		got := map[string]bool{}
		for _, c := range []Condition{
			{Field: "$.a", Operator: OpEq, Value: "x"},
			{Field: "$.a", Operator: OpExists},
			{Field: "$.a", Operator: OpRegex, Value: ".*"},
			{Field: "$.a", Operator: OpNe, Value: "x"},
			{Field: "$.a", Operator: OpExists, Value: false},
		} {
			ok, err := matchOne(env, c)
			if err != nil {
				t.Fatal(err)
			}
			got[fmt.Sprintf("%s %v", c.Operator, c.Value)] = ok
		}
		want := map[string]bool{"eq x": false, "exists <nil>": false, "regex .*": false, "ne x": true, "exists false": true}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: (-want +got):\n%s", name, d)
		}
	}
}

func TestMatcherIsConjunction(t *testing.T) {
	env := testEnv()
	cases := []struct {
		conds []Condition
		want  bool
	}{
		{nil, true},
		{[]Condition{{Field: "subject", Operator: OpPrefix, Value: "orders"}, {Field: "x-tenant", Operator: OpEq, Value: "acme"}}, true},
		{[]Condition{{Field: "subject", Operator: OpPrefix, Value: "orders"}, {Field: "x-tenant", Operator: OpEq, Value: "other"}}, false},
		{[]Condition{{Field: "$.order.qty", Operator: OpEq, Value: 3}, {Field: "$.flag", Operator: OpEq, Value: true}}, true},
		{[]Condition{{Field: "$.order.qty", Operator: OpEq, Value: 3}, {Field: "$.flag", Operator: OpEq, Value: false}}, false},
	}
	for i, c := range cases {
		m, err := Compile(c.conds)
		if err != nil {
			t.Fatal(err)
		}
		in := NewInput(env)
		if got := m.Match(&in); got != c.want {
			t.Errorf("case %d: got %v want %v", i, got, c.want)
		}
	}
	var nilM *Matcher
	in := NewInput(nil)
	if !nilM.Match(&in) {
		t.Error("nil matcher must match")
	}
}

func TestNilEnvelopeFieldsAreMissing(t *testing.T) {
	runCondCases(t, nil, []condCase{
		{"subject", OpEq, "", false},
		{"subject", OpExists, false, true},
		{"x-tenant", OpNe, "a", true},
		{"$.a", OpExists, false, true},
		{"$.a", OpEq, 1, false},
	})
}
