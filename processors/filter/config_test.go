package filter

import (
	"errors"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/google/go-cmp/cmp"
)

func codeOf(err error) string { return string(fault.CodeOf(err)) }

// problems lists the messages of the errors joined in err.
func problems(err error) []string {
	var out []string
	for _, e := range flatten(err) {
		out = append(out, e.Error())
	}
	return out
}

func TestValidate(t *testing.T) {
	envEq := Condition{Field: "header.x-env", Operator: OperatorEquals, Value: "staging"}
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"pass", Config{Action: ActionPass, Conditions: []Condition{envEq}}, nil},
		{"drop", Config{Name: "d", Action: ActionDrop, Conditions: []Condition{envEq}}, nil},
		{"route", Config{Action: ActionRoute, RouteTo: "b1", Conditions: []Condition{envEq}}, nil},
		{"invert and cap", Config{Action: ActionDrop, Invert: true, MaxPayloadBytes: -5, Conditions: []Condition{envEq}}, nil},
		{"action missing", Config{Name: "x", Conditions: []Condition{envEq}},
			[]string{`INVALID_CONFIG: filter "x": action: is required (pass, drop or route)`}},
		{"action unknown", Config{Name: "x", Action: "reroute", Conditions: []Condition{envEq}},
			[]string{`INVALID_CONFIG: filter "x": action: "reroute" is not one of pass, drop, route`}},
		{"action wrong case", Config{Name: "x", Action: "DROP", Conditions: []Condition{envEq}},
			[]string{`INVALID_CONFIG: filter "x": action: "DROP" is not one of pass, drop, route`}},
		{"route without route_to", Config{Name: "x", Action: ActionRoute, Conditions: []Condition{envEq}},
			[]string{`INVALID_CONFIG: filter "x": route_to: is required when action is route`}},
		{"route_to blank", Config{Name: "x", Action: ActionRoute, RouteTo: "  ", Conditions: []Condition{envEq}},
			[]string{`INVALID_CONFIG: filter "x": route_to: is required when action is route`}},
		{"route_to with drop", Config{Name: "x", Action: ActionDrop, RouteTo: "b1", Conditions: []Condition{envEq}},
			[]string{`INVALID_CONFIG: filter "x": route_to: is only used when action is route, not "drop"`}},
		{"no conditions", Config{Action: ActionDrop},
			[]string{`INVALID_CONFIG: filter "filter": conditions: at least one condition is required`}},
		{"bad conditions", Config{Name: "x", Action: ActionPass, Conditions: []Condition{
			envEq,
			{Field: "", Operator: OperatorEquals, Value: 1},
			{Field: "subject", Operator: "like", Value: "a"},
			{Field: "$.a", Operator: OperatorGreaterThan, Value: "ten"},
			{Field: "$.a..b", Operator: OperatorExists},
			{Field: "subject", Operator: OperatorExists, Value: "yes"},
			{Field: "subject", Operator: OperatorIn, Value: "a"},
		}}, []string{
			`INVALID_CONFIG: filter "x": conditions[1]: field is required`,
			`INVALID_CONFIG: filter "x": conditions[2]: operator "like" is invalid`,
			`INVALID_CONFIG: filter "x": conditions[3]: operator "gt" requires a numeric value, got string`,
			`INVALID_CONFIG: filter "x": conditions[4]: field "$.a..b" is not a valid JSON path: empty path segment`,
			`INVALID_CONFIG: filter "x": conditions[5]: operator "exists" requires a boolean value, got string`,
			`INVALID_CONFIG: filter "x": conditions[6]: operator "in" requires a list value, got string`,
		}},
		{"everything wrong at once", Config{Name: "x", Action: ActionRoute, Conditions: []Condition{{Field: "subject", Operator: OperatorRegex, Value: "("}}},
			[]string{
				`INVALID_CONFIG: filter "x": route_to: is required when action is route`,
				"INVALID_CONFIG: filter \"x\": conditions[0]: invalid regex pattern: error parsing regexp: missing closing ): `(`",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if diff := cmp.Diff(tt.want, problems(err)); diff != "" {
				t.Fatalf("problems (-want +got):\n%s", diff)
			}
			for _, e := range flatten(err) {
				if fault.ClassOf(e) != fault.ClassPermanent || !errors.Is(e, fault.ErrInvalidConfig) {
					t.Errorf("%v: class %v, want INVALID_CONFIG", e, fault.ClassOf(e))
				}
			}
			if _, nerr := New(tt.cfg); (nerr == nil) != (err == nil) {
				t.Errorf("New error %v disagrees with Validate %v", nerr, err)
			}
		})
	}
}

func TestRouteRequiredSentinel(t *testing.T) {
	_, err := NewRouteFilter("r", "", Condition{Field: "subject", Operator: OperatorExists})
	if !errors.Is(err, ErrRouteRequired) || !errors.Is(err, fault.ErrInvalidConfig) {
		t.Fatalf("err = %v, want ErrRouteRequired and INVALID_CONFIG", err)
	}
	if be, _ := fault.As(err); be == nil || !strings.Contains(be.Error(), `filter "r"`) {
		t.Errorf("error does not name the filter: %v", err)
	}
}

func TestWithDefaults(t *testing.T) {
	tests := []struct {
		in, want Config
	}{
		{Config{}, Config{Name: DefaultName, MaxPayloadBytes: DefaultMaxPayloadBytes}},
		{Config{MaxPayloadBytes: -1}, Config{Name: DefaultName, MaxPayloadBytes: DefaultMaxPayloadBytes}},
		{Config{Name: "n", MaxPayloadBytes: 10, Action: ActionDrop, Invert: true},
			Config{Name: "n", MaxPayloadBytes: 10, Action: ActionDrop, Invert: true}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.in.WithDefaults()); diff != "" {
			t.Errorf("WithDefaults(%+v) (-want +got):\n%s", tt.in, diff)
		}
	}
	if DefaultMaxPayloadBytes != 1<<20 || DefaultName != "filter" {
		t.Errorf("defaults changed: %d %q", DefaultMaxPayloadBytes, DefaultName)
	}
}

func TestConfigIsNotModified(t *testing.T) {
	cfg := Config{Action: ActionDrop, Conditions: []Condition{{Field: "subject", Operator: OperatorExists}}}
	want := cfg
	want.Conditions = append([]Condition(nil), cfg.Conditions...)
	f := mustNew(t, cfg)
	if f.Name() != DefaultName {
		t.Errorf("Name() = %q, want %q", f.Name(), DefaultName)
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("config changed (-want +got):\n%s", diff)
	}
}
