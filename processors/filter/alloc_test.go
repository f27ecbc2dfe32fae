//go:build !race

// Allocation counts are asserted without the race detector: its
// instrumentation and extra collections (which empty the sync.Pool caches
// that regexp relies on) make them unreliable. make test runs these tests
// in a separate pass without -race.

package filter

import (
	"context"
	"errors"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// TestHeaderPathDoesNotAllocate checks every outcome of a filter on the
// subject and headers: passing, dropping and routing cost no allocation.
func TestHeaderPathDoesNotAllocate(t *testing.T) {
	conds := []Condition{
		{Field: "header.x-env", Operator: OperatorEquals, Value: "staging"},
		{Field: "x-priority", Operator: OperatorGreaterThan, Value: 3},
		{Field: "subject", Operator: OperatorPrefix, Value: "orders."},
		{Field: "x-tenant", Operator: OperatorIn, Value: []any{"globex", "acme"}},
	}
	filters := map[string]Config{
		"pass":  {Action: ActionPass, Conditions: conds},
		"drop":  {Action: ActionDrop, Conditions: conds},
		"route": {Action: ActionRoute, RouteTo: "b1", Conditions: conds},
		"miss":  {Action: ActionDrop, Invert: true, Conditions: conds},
	}
	ctx := context.Background()
	for name, cfg := range filters {
		f := mustNew(t, cfg)
		env := newEnv()
		allocs := testing.AllocsPerRun(200, func() {
			err := f.Process(ctx, env, nextOK)
			if err != nil && !errors.Is(err, fault.ErrMessageFiltered) {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per message", name, allocs)
		}
	}
}

// TestJSONScalarPathDoesNotAllocate checks a filter on scalar payload
// fields.
func TestJSONScalarPathDoesNotAllocate(t *testing.T) {
	f := mustNew(t, Config{Action: ActionPass, Conditions: []Condition{
		{Field: "$.order.id", Operator: OperatorEquals, Value: "o-17"},
		{Field: "$.priority", Operator: OperatorLessThan, Value: 3},
	}})
	env := messaging.NewEnvelope("s", []byte(orderPayload))
	allocs := testing.AllocsPerRun(200, func() {
		if err := f.Process(context.Background(), env, nextOK); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per message", allocs)
	}
}
