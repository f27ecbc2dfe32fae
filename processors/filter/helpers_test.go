package filter

import (
	"context"
	"testing"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// orderPayload is the JSON document most tests filter on.
const orderPayload = `{
  "priority": 2,
  "env": "staging",
  "order": {"id": "o-17", "total": 99.5, "qty": 3, "tags": ["gift", "eu"],
            "lines": [{"sku": "A1", "n": 1}, {"sku": "B2", "n": 4}]},
  "big": 9007199254740993,
  "flag": true,
  "nothing": null,
  "label": "42"
}`

// newEnv returns an envelope on subject orders.created.eu carrying
// orderPayload and a few headers of different types.
func newEnv() *messaging.Envelope {
	env := messaging.NewEnvelope("orders.created.eu", []byte(orderPayload))
	env.Headers["x-env"] = "staging"
	env.Headers["x-tenant"] = "acme"
	env.Headers["x-priority"] = "7"
	env.Headers["x-count"] = 42
	env.Headers["x-bytes"] = []byte("blob-data")
	env.Headers["x-bool"] = true
	return env
}

// outcome is what one Process call did.
type outcome struct {
	NextCalled bool
	Err        string // error code, empty for nil
	Override   any    // route override header after the call, nil when absent
}

// run processes env through f and reports the outcome.
func run(t *testing.T, f *Filter, env *messaging.Envelope) outcome {
	t.Helper()
	var o outcome
	err := f.Process(context.Background(), env, func(context.Context, *messaging.Envelope) error {
		o.NextCalled = true
		return nil
	})
	if err != nil {
		o.Err = codeOf(err)
	}
	if env != nil {
		o.Override = env.Headers[messaging.HeaderRouteOverride]
	}
	return o
}

func mustNew(t testing.TB, cfg Config, opts ...Option) *Filter {
	t.Helper()
	f, err := New(cfg, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return f
}
