package filter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// FuzzFilter builds a condition from arbitrary text, runs it over an
// arbitrary payload and header, and checks that nothing panics and that
// the actions agree: drop filters exactly what pass lets through, Invert
// flips both, route steers exactly what pass lets through, and the only
// errors are the filtered sentinel and the size cap.
func FuzzFilter(f *testing.F) {
	f.Add([]byte(orderPayload), "$.order.id", "eq", `"o-17"`, "staging")
	f.Add([]byte(orderPayload), "$.order.lines[1].n", "gte", `4`, "")
	f.Add([]byte(orderPayload), "header.x-env", "in", `["staging","prod"]`, "prod")
	f.Add([]byte(`{"a":{"b":1},"a":{"c":2}}`), "$.a.b", "exists", `false`, "")
	f.Add([]byte(`{"s":"\ud83d\ude00\ud800"}`), "$.s", "regex", `"^\\p{So}"`, "")
	f.Add([]byte(`[1,[2,{"x":-1.5e300}]]`), "$[1][1].x", "lt", `0`, "")
	f.Add([]byte(`{"a":1`), "$.a", "ne", `1`, "1")
	f.Add([]byte("not json"), "subject", "prefix", `"orders"`, "")
	f.Add([]byte(`{"n":12345678901234567890}`), "$.n", "gt", `12345678901234567889`, "12345678901234567890")
	f.Fuzz(func(t *testing.T, payload []byte, field, op, value, header string) {
		cond := Condition{Field: field, Operator: Operator(op), Value: fuzzValue(value)}
		if err := (Config{Action: ActionPass, Conditions: []Condition{cond}}).Validate(); err != nil {
			if fault.ClassOf(err) != fault.ClassPermanent {
				t.Fatalf("config error of class %v: %v", fault.ClassOf(err), err)
			}
			return
		}
		env := messaging.NewEnvelopeFromImmutablePayload("orders.created", payload)
		env.Headers["x-env"] = header
		ctx := context.Background()
		outcome := func(cfg Config) (passed bool, override any) {
			cfg.Conditions = []Condition{cond}
			cfg.MaxPayloadBytes = 4096
			e := env.Clone()
			called := false
			err := mustNew(t, cfg).Process(ctx, e, func(context.Context, *messaging.Envelope) error {
				called = true
				return nil
			})
			switch {
			case err == nil:
				if !called {
					t.Fatal("nil error without calling next")
				}
			case errors.Is(err, fault.ErrPayloadTooLarge):
				if len(payload) <= 4096 {
					t.Fatalf("size error for %d bytes", len(payload))
				}
				return false, "too large"
			case !errors.Is(err, fault.ErrMessageFiltered) || called:
				t.Fatalf("unexpected error %v (next called: %v)", err, called)
			}
			return err == nil, e.Headers[messaging.HeaderRouteOverride]
		}
		for _, invert := range []bool{false, true} {
			pass, o1 := outcome(Config{Action: ActionPass, Invert: invert})
			drop, o2 := outcome(Config{Action: ActionDrop, Invert: !invert})
			routed, o3 := outcome(Config{Action: ActionRoute, RouteTo: "b", Invert: invert})
			if o1 == "too large" {
				if o2 != o1 || o3 != o1 {
					t.Fatalf("size cap applied unevenly: %v %v %v", o1, o2, o3)
				}
				continue
			}
			if pass != drop {
				t.Fatalf("invert=%v: pass filter passed=%v, inverted drop filter passed=%v", invert, pass, drop)
			}
			if !routed || (o3 == "b") != pass || o1 != nil || o2 != nil {
				t.Fatalf("invert=%v: route passed=%v override=%v; pass passed=%v", invert, routed, o3, pass)
			}
		}
	})
}

// fuzzValue decodes s as a JSON value when it is one, keeping numbers
// exact, and otherwise uses s as a string.
func fuzzValue(s string) any {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return s
	}
	return v
}
