package filter

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFieldsAndOperators covers every field pattern and operator a filter
// condition accepts, each with a case that holds and one that does not.
func TestFieldsAndOperators(t *testing.T) {
	type row struct {
		field string
		op    Operator
		value any
		want  bool
	}
	rows := []row{
		// Field patterns.
		{"subject", OperatorEquals, "orders.created.eu", true},
		{"subject", OperatorEquals, "orders", false},
		{"header.x-env", OperatorEquals, "staging", true},
		{"header.x-env", OperatorEquals, "prod", false},
		{"x-env", OperatorEquals, "staging", true},
		{"x-tenant", OperatorEquals, "globex", false},
		{"$.env", OperatorEquals, "staging", true},
		{"$.order.id", OperatorEquals, "o-17", true},
		{"$.order.id", OperatorEquals, "o-18", false},
		{"$.order.tags[1]", OperatorEquals, "eu", true},
		{"$.order.tags.0", OperatorEquals, "gift", true},
		{"$.order.lines[1].sku", OperatorEquals, "B2", true},
		{"$.order.lines.0.sku", OperatorEquals, "B2", false},

		// eq: strings, numbers, booleans, null, lists.
		{"$.priority", OperatorEquals, 2, true},
		{"$.priority", OperatorEquals, 2.0, true},
		{"$.priority", OperatorEquals, "2", false},
		{"$.order.total", OperatorEquals, 99.5, true},
		{"$.big", OperatorEquals, int64(9007199254740993), true},
		{"$.big", OperatorEquals, int64(9007199254740992), false},
		{"$.flag", OperatorEquals, true, true},
		{"$.nothing", OperatorEquals, nil, true},
		{"$.label", OperatorEquals, "42", true},
		{"$.label", OperatorEquals, 42, false},
		{"$.order.tags", OperatorEquals, []any{"gift", "eu"}, true},
		{"x-priority", OperatorEquals, 7, true},
		{"x-count", OperatorEquals, 42, true},
		{"x-bool", OperatorEquals, true, true},
		{"x-bytes", OperatorEquals, "blob-data", true},

		// ne.
		{"x-env", OperatorNotEquals, "prod", true},
		{"x-env", OperatorNotEquals, "staging", false},
		{"$.priority", OperatorNotEquals, 3, true},
		{"$.missing", OperatorNotEquals, "x", true},
		{"x-missing", OperatorNotEquals, "x", true},

		// prefix, contains, regex.
		{"subject", OperatorPrefix, "orders.", true},
		{"subject", OperatorPrefix, "created", false},
		{"subject", OperatorContains, "created", true},
		{"subject", OperatorContains, "deleted", false},
		{"$.order.id", OperatorContains, "-1", true},
		{"$.priority", OperatorContains, "2", false}, // not a string
		{"subject", OperatorRegex, `^orders\.[a-z]+\.eu$`, true},
		{"subject", OperatorRegex, `^eu`, false},
		{"$.env", OperatorRegex, `stag`, true},
		{"x-bytes", OperatorRegex, `data$`, true},

		// Numeric comparisons.
		{"$.priority", OperatorGreaterThan, 1, true},
		{"$.priority", OperatorGreaterThan, 2, false},
		{"$.priority", OperatorLessThan, 3, true},
		{"$.priority", OperatorLessThan, 2, false},
		{"$.priority", OperatorGreaterThanOrEqual, 2, true},
		{"$.priority", OperatorGreaterThanOrEqual, 2.5, false},
		{"$.priority", OperatorLessThanOrEqual, 2, true},
		{"$.priority", OperatorLessThanOrEqual, 1.5, false},
		{"$.big", OperatorGreaterThan, int64(9007199254740992), true},
		{"x-priority", OperatorGreaterThan, 3, true}, // numeric header text
		{"x-count", OperatorLessThan, 41.5, false},
		{"$.label", OperatorGreaterThan, 1, false}, // payload strings stay strings
		{"$.missing", OperatorGreaterThan, 0, false},

		// exists.
		{"$.order", OperatorExists, nil, true},
		{"$.order", OperatorExists, true, true},
		{"$.nothing", OperatorExists, nil, true},
		{"$.order.tags[5]", OperatorExists, nil, false},
		{"$.order.tags[5]", OperatorExists, false, true},
		{"x-env", OperatorExists, nil, true},
		{"x-missing", OperatorExists, nil, false},
		{"x-missing", OperatorExists, false, true},

		// in.
		{"x-env", OperatorIn, []any{"prod", "staging"}, true},
		{"x-env", OperatorIn, []string{"prod", "dev"}, false},
		{"$.priority", OperatorIn, []any{1, 2, 3}, true},
		{"$.priority", OperatorIn, []int{5, 6}, false},
		{"$.missing", OperatorIn, []any{nil}, false},
	}
	got := map[string]bool{}
	want := map[string]bool{}
	for _, r := range rows {
		name := fmt.Sprintf("%s %s %#v", r.field, r.op, r.value)
		f := mustNew(t, Config{Action: ActionPass, Conditions: []Condition{{Field: r.field, Operator: r.op, Value: r.value}}})
		got[name] = run(t, f, newEnv()).NextCalled
		want[name] = r.want
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
}
