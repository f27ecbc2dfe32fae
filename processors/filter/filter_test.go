package filter

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/google/go-cmp/cmp"
)

var _ ports.Processor = (*Filter)(nil)

func TestActions(t *testing.T) {
	match := []Condition{{Field: "header.x-env", Operator: OperatorEquals, Value: "staging"}}
	miss := []Condition{{Field: "header.x-env", Operator: OperatorEquals, Value: "prod"}}
	passed := outcome{NextCalled: true}
	filtered := outcome{Err: "MESSAGE_FILTERED"}
	routed := outcome{NextCalled: true, Override: "high"}
	tests := []struct {
		name   string
		action Action
		invert bool
		conds  []Condition
		want   outcome
	}{
		{"pass on match", ActionPass, false, match, passed},
		{"pass on miss", ActionPass, false, miss, filtered},
		{"pass inverted on match", ActionPass, true, match, filtered},
		{"pass inverted on miss", ActionPass, true, miss, passed},
		{"drop on match", ActionDrop, false, match, filtered},
		{"drop on miss", ActionDrop, false, miss, passed},
		{"drop inverted on match", ActionDrop, true, match, passed},
		{"drop inverted on miss", ActionDrop, true, miss, filtered},
		{"route on match", ActionRoute, false, match, routed},
		{"route on miss", ActionRoute, false, miss, passed},
		{"route inverted on match", ActionRoute, true, match, passed},
		{"route inverted on miss", ActionRoute, true, miss, routed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Name: "f", Action: tt.action, Invert: tt.invert, Conditions: tt.conds}
			if tt.action == ActionRoute {
				cfg.RouteTo = "high"
			}
			got := run(t, mustNew(t, cfg), newEnv())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConditionsAreANDed(t *testing.T) {
	env := Condition{Field: "header.x-env", Operator: OperatorEquals, Value: "staging"}
	prio := Condition{Field: "$.priority", Operator: OperatorLessThan, Value: 3}
	prioHigh := Condition{Field: "$.priority", Operator: OperatorGreaterThan, Value: 3}
	tests := []struct {
		name  string
		conds []Condition
		want  bool // filtered by a drop filter
	}{
		{"both hold", []Condition{env, prio}, true},
		{"second fails", []Condition{env, prioHigh}, false},
		{"first fails", []Condition{{Field: "x-env", Operator: OperatorEquals, Value: "prod"}, prio}, false},
		{"three hold", []Condition{env, prio, {Field: "subject", Operator: OperatorPrefix, Value: "orders."}}, true},
	}
	for _, tt := range tests {
		f := mustNew(t, Config{Action: ActionDrop, Conditions: tt.conds})
		if got := run(t, f, newEnv()).Err != ""; got != tt.want {
			t.Errorf("%s: filtered = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFilteredError(t *testing.T) {
	f := mustNew(t, Config{Name: "drop-staging", Action: ActionDrop,
		Conditions: []Condition{{Field: "x-env", Operator: OperatorEquals, Value: "staging"}}})
	called := false
	err := f.Process(context.Background(), newEnv(), func(context.Context, *messaging.Envelope) error {
		called = true
		return nil
	})
	if called {
		t.Error("next was called for a dropped message")
	}
	if !errors.Is(err, fault.ErrMessageFiltered) || fault.ClassOf(err) != fault.ClassRejected {
		t.Fatalf("err = %v (class %v), want MESSAGE_FILTERED, rejected", err, fault.ClassOf(err))
	}
	be, _ := fault.As(err)
	if diff := cmp.Diff([]fault.Attr{{Key: "processor", Value: "drop-staging"}}, be.Attrs()); diff != "" {
		t.Errorf("attrs (-want +got):\n%s", diff)
	}
	if !strings.Contains(err.Error(), `"drop-staging"`) {
		t.Errorf("error %q does not name the filter", err)
	}
}

func TestNextErrorIsReturned(t *testing.T) {
	f := mustNew(t, Config{Action: ActionPass, Conditions: []Condition{{Field: "subject", Operator: OperatorExists}}})
	boom := fault.ErrUnavailable.WithMessage("downstream")
	err := f.Process(context.Background(), newEnv(), func(context.Context, *messaging.Envelope) error { return boom })
	if err != boom {
		t.Errorf("err = %v, want the error of next", err)
	}
}

func TestRouteOverridesEarlierValue(t *testing.T) {
	f := mustNew(t, Config{Action: ActionRoute, RouteTo: "b2", Conditions: []Condition{{Field: "subject", Operator: OperatorExists}}})
	env := newEnv()
	env.Headers[messaging.HeaderRouteOverride] = "b1"
	if got := run(t, f, env); got.Override != "b2" || !got.NextCalled {
		t.Errorf("outcome %+v, want override b2", got)
	}
	env = newEnv()
	env.Headers = nil
	if got := run(t, f, env); got.Override != "b2" {
		t.Errorf("nil headers: outcome %+v, want override b2", got)
	}
}

func TestPayloadCap(t *testing.T) {
	big := messaging.NewEnvelope("s", []byte(`{"priority":1,"pad":"`+strings.Repeat("x", 100)+`"}`))
	big.Headers["x-env"] = "staging"
	jsonCond := []Condition{{Field: "$.priority", Operator: OperatorEquals, Value: 1}}
	headerCond := []Condition{{Field: "x-env", Operator: OperatorEquals, Value: "staging"}}
	tests := []struct {
		name  string
		cap   int
		conds []Condition
		want  outcome
	}{
		{"json under cap", 1000, jsonCond, outcome{Err: "MESSAGE_FILTERED"}},
		{"json at cap", big.PayloadLen(), jsonCond, outcome{Err: "MESSAGE_FILTERED"}},
		{"json over cap", big.PayloadLen() - 1, jsonCond, outcome{Err: "PAYLOAD_TOO_LARGE"}},
		{"header ignores cap", 10, headerCond, outcome{Err: "MESSAGE_FILTERED"}},
		{"mixed over cap", 10, append(headerCond, jsonCond...), outcome{Err: "PAYLOAD_TOO_LARGE"}},
		{"default cap", 0, jsonCond, outcome{Err: "MESSAGE_FILTERED"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustNew(t, Config{Name: "capped", Action: ActionDrop, MaxPayloadBytes: tt.cap, Conditions: tt.conds})
			if diff := cmp.Diff(tt.want, run(t, f, big)); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
	f := mustNew(t, Config{Name: "capped", Action: ActionPass, MaxPayloadBytes: 8, Conditions: jsonCond})
	err := f.Process(context.Background(), big, nil)
	if fault.ClassOf(err) != fault.ClassRejected || !errors.Is(err, fault.ErrPayloadTooLarge) ||
		!strings.Contains(err.Error(), `filter "capped"`) {
		t.Errorf("err = %v, want rejected PAYLOAD_TOO_LARGE naming the filter", err)
	}

	over := messaging.NewEnvelope("s", []byte(`{"priority":1,"pad":"`+strings.Repeat("x", DefaultMaxPayloadBytes)+`"}`))
	f = mustNew(t, Config{Action: ActionDrop, Conditions: jsonCond})
	if got := run(t, f, over); got.Err != "PAYLOAD_TOO_LARGE" {
		t.Errorf("default cap: outcome %+v, want PAYLOAD_TOO_LARGE", got)
	}
}

func TestNonJSONPayload(t *testing.T) {
	// On a payload that is not one JSON document every $. field is missing:
	// only ne and exists:false hold.
	conds := map[string]Condition{
		"eq":           {Field: "$.priority", Operator: OperatorEquals, Value: 1},
		"gt":           {Field: "$.priority", Operator: OperatorGreaterThan, Value: 0},
		"exists":       {Field: "$.priority", Operator: OperatorExists},
		"ne":           {Field: "$.priority", Operator: OperatorNotEquals, Value: 1},
		"exists false": {Field: "$.priority", Operator: OperatorExists, Value: false},
	}
	payloads := []string{"", "plain text", `{"priority":1`, `{"priority":1}{}`, "\xff\xfe", `[1,2`, `{"priority":01}`}
	for _, p := range payloads {
		got := map[string]bool{}
		for name, c := range conds {
			f := mustNew(t, Config{Action: ActionDrop, Conditions: []Condition{c}})
			got[name] = run(t, f, messaging.NewEnvelope("s", []byte(p))).Err == "MESSAGE_FILTERED"
		}
		want := map[string]bool{"eq": false, "gt": false, "exists": false, "ne": true, "exists false": true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("payload %q (-want +got):\n%s", p, diff)
		}
	}
}

func TestNilEnvelope(t *testing.T) {
	f := mustNew(t, Config{Action: ActionPass, Conditions: []Condition{{Field: "subject", Operator: OperatorExists}}})
	err := f.Process(context.Background(), nil, nil)
	if fault.ClassOf(err) != fault.ClassRejected {
		t.Errorf("err = %v, want a rejected error", err)
	}
}

func TestMetrics(t *testing.T) {
	mem := telemetry.NewMemory()
	f := mustNew(t, Config{Name: "m", Action: ActionRoute, RouteTo: "b", MaxPayloadBytes: 300,
		Conditions: []Condition{{Field: "$.env", Operator: OperatorEquals, Value: "staging"}}}, WithMeter(mem), WithLogger(nil), nil)
	d := mustNew(t, Config{Name: "d", Action: ActionDrop,
		Conditions: []Condition{{Field: "x-env", Operator: OperatorEquals, Value: "staging"}}}, WithMeter(mem))
	run(t, f, newEnv())                                             // routed
	run(t, f, messaging.NewEnvelope("s", []byte(`{"env":"prod"}`))) // passed
	run(t, f, messaging.NewEnvelope("s", make([]byte, 301)))        // rejected
	run(t, d, newEnv())                                             // dropped
	run(t, d, messaging.NewEnvelope("s", nil))                      // passed
	got := map[string]float64{}
	for _, name := range []string{MetricEvaluated, MetricPassed, MetricDropped, MetricRouted, MetricRejected} {
		for _, p := range []string{"m", "d"} {
			got[name+"/"+p] = mem.Value(name, p)
		}
	}
	want := map[string]float64{
		MetricEvaluated + "/m": 3, MetricPassed + "/m": 1, MetricDropped + "/m": 0, MetricRouted + "/m": 1, MetricRejected + "/m": 1,
		MetricEvaluated + "/d": 2, MetricPassed + "/d": 1, MetricDropped + "/d": 1, MetricRouted + "/d": 0, MetricRejected + "/d": 0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

func TestConvenienceConstructors(t *testing.T) {
	staging := Condition{Field: "header.x-env", Operator: OperatorEquals, Value: "staging"}
	drop, err1 := NewDropFilter("drop-staging", staging)
	pass, err2 := NewPassFilter("only-staging", staging)
	route, err3 := NewRouteFilter("reroute", "staging-binding", staging)
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	got := map[string]outcome{}
	for _, f := range []*Filter{drop, pass, route} {
		got[f.Name()] = run(t, f, newEnv())
	}
	want := map[string]outcome{
		"drop-staging": {Err: "MESSAGE_FILTERED"},
		"only-staging": {NextCalled: true},
		"reroute":      {NextCalled: true, Override: "staging-binding"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if _, err := NewDropFilter("empty"); err == nil {
		t.Error("a drop filter without conditions was accepted")
	}
}
