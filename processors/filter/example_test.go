package filter_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/processors/filter"
)

func ExampleNew() {
	f, err := filter.New(filter.Config{
		Name:   "drop-staging-low-priority",
		Action: filter.ActionDrop,
		Conditions: []filter.Condition{
			{Field: "header.x-env", Operator: filter.OperatorEquals, Value: "staging"},
			{Field: "$.priority", Operator: filter.OperatorLessThan, Value: 3},
		},
	})
	if err != nil {
		panic(err)
	}
	next := func(context.Context, *messaging.Envelope) error {
		fmt.Println("dispatched")
		return nil
	}
	for _, payload := range []string{`{"priority":1}`, `{"priority":5}`} {
		env := messaging.NewEnvelope("orders.created", []byte(payload))
		env.Headers["x-env"] = "staging"
		err := f.Process(context.Background(), env, next)
		fmt.Println(payload, "filtered:", errors.Is(err, fault.ErrMessageFiltered))
	}
	// Output:
	// {"priority":1} filtered: true
	// dispatched
	// {"priority":5} filtered: false
}

func ExampleNewRouteFilter() {
	f, err := filter.NewRouteFilter("reroute-high", "high-priority-binding",
		filter.Condition{Field: "$.priority", Operator: filter.OperatorGreaterThanOrEqual, Value: 8})
	if err != nil {
		panic(err)
	}
	env := messaging.NewEnvelope("orders.created", []byte(`{"priority":9}`))
	_ = f.Process(context.Background(), env, func(_ context.Context, e *messaging.Envelope) error {
		fmt.Println("override:", e.Headers[messaging.HeaderRouteOverride])
		return nil
	})
	// Output:
	// override: high-priority-binding
}
