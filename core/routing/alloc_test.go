//go:build !race

// Allocation counts are asserted without the race detector: its
// instrumentation and extra collections (which empty the sync.Pool caches
// that regexp relies on) make them unreliable. make test runs these tests
// in a separate pass without -race.

package routing

import (
	"context"
	"testing"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

func TestMatchHeaderAndSubjectDoNotAllocate(t *testing.T) {
	m, err := Compile([]Condition{
		{Field: "subject", Operator: OpPrefix, Value: "orders."},
		{Field: "subject", Operator: OpRegex, Value: `created\.eu$`},
		{Field: "header.x-tenant", Operator: OpEq, Value: "acme"},
		{Field: "x-tenant", Operator: OpIn, Value: []any{"globex", "acme"}},
		{Field: "x-priority", Operator: OpGt, Value: 3},
		{Field: "x-count", Operator: OpEq, Value: 42},
		{Field: "x-float", Operator: OpLte, Value: 2.5},
		{Field: "x-bytes", Operator: OpContains, Value: "data"},
		{Field: "x-bool", Operator: OpEq, Value: true},
		{Field: "x-missing", Operator: OpExists, Value: false},
	})
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv()
	allocs := testing.AllocsPerRun(100, func() {
		in := NewInput(env)
		if !m.Match(&in) {
			t.Fatal("no match")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per match", allocs)
	}
}

func TestMatchPayloadScalarsDoNotAllocate(t *testing.T) {
	m, err := Compile([]Condition{
		{Field: "$.order.id", Operator: OpEq, Value: "o-1"},
		{Field: "$.order.lines[1].n", Operator: OpLt, Value: 2},
		{Field: "$.big", Operator: OpEq, Value: int64(9007199254740993)},
		{Field: "$.flag", Operator: OpEq, Value: true},
		{Field: "$.text", Operator: OpRegex, Value: "wor"},
	})
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv()
	allocs := testing.AllocsPerRun(100, func() {
		in := NewInput(env)
		if !m.Match(&in) {
			t.Fatal("no match")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per match", allocs)
	}
}

func TestResolveDoesNotAllocate(t *testing.T) {
	rules := ResolverSpec{Type: TypeRules, DefaultBinding: "bind-default", Rules: []Rule{
		{BindingID: "bind-acme", Match: []Condition{{Field: "x-tenant", Operator: OpEq, Value: "nope"}}},
		{BindingID: "bind-globex", Match: []Condition{{Field: "$.order.id", Operator: OpEq, Value: "o-1"}}},
	}}
	specs := map[string]ResolverSpec{
		"static":             {},
		"all":                {Type: TypeAll},
		"header_map":         {Type: TypeHeaderMap, HeaderKey: "x-tenant", HeaderMap: map[string]string{"acme": "bind-acme"}},
		"header_map integer": {Type: TypeHeaderMap, HeaderKey: "x-count", HeaderMap: map[string]string{"42": "bind-acme"}},
		"rules":              rules,
	}
	ctx := context.Background()
	for name, spec := range specs {
		r := mustResolver(t, spec)
		for _, env := range []*messaging.Envelope{testEnv(), envWith(map[string]any{messaging.HeaderRouteOverride: "bind-globex"}, "")} {
			allocs := testing.AllocsPerRun(100, func() {
				if _, err := r.Resolve(ctx, env); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%s: %v allocations per Resolve", name, allocs)
			}
		}
	}
}
