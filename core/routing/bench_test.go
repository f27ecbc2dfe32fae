package routing

import (
	"context"
	"testing"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// benchPayload is a realistic order event of about 1 KiB. The field the
// rules decide on ($.routing.region) comes late in the document.
const benchPayload = `{
  "id": "evt-8f14e45f-ceea-467f-a0e6-0f6f0d5e2c11",
  "type": "order.created",
  "occurred_at": "2024-05-17T09:41:27.123Z",
  "source": {"service": "checkout", "version": "3.14.1", "host": "checkout-7d9f8c6b5-x2k4p"},
  "customer": {
    "id": "c-102934",
    "name": "Jane Q. Example",
    "email": "jane.example@example.com",
    "tier": "gold",
    "address": {"street": "12 Long Road", "city": "Springfield", "zip": "12345", "country": "US"}
  },
  "order": {
    "id": "o-99812",
    "currency": "EUR",
    "total": 1249.95,
    "lines": [
      {"sku": "SKU-1001", "name": "Widget \"Pro\"", "qty": 2, "price": 199.99},
      {"sku": "SKU-2002", "name": "Gadget Mini", "qty": 1, "price": 349.00},
      {"sku": "SKU-3003", "name": "Cable 2m", "qty": 5, "price": 9.99},
      {"sku": "SKU-4004", "name": "Adapter \u00e9dition", "qty": 1, "price": 450.98}
    ],
    "discounts": [], "gift": false, "notes": null
  },
  "payment": {"method": "card", "status": "authorized", "reference": "pay_3NcVq2LkZ8xY1bQw"},
  "shipping": {"method": "express", "carrier": "DHL", "eta_days": 2},
  "routing": {"region": "eu-west", "priority": 7, "partition": 12},
  "trace": {"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "span_id": "00f067aa0ba902b7"}
}`

func benchRulesResolver(b *testing.B) (*messaging.Envelope, func() error) {
	bindings := []Binding{{ID: "us", Address: "orders.us"}, {ID: "eu", Address: "orders.eu"}, {ID: "apac", Address: "orders.apac"}, {ID: "other", Address: "orders.other"}}
	spec := ResolverSpec{
		Type:           TypeRules,
		DefaultBinding: "other",
		Rules: []Rule{
			{BindingID: "us", Match: []Condition{{Field: "$.routing.region", Operator: OpPrefix, Value: "us-"}}},
			{BindingID: "apac", Match: []Condition{{Field: "$.routing.region", Operator: OpIn, Value: []any{"ap-south", "ap-east"}}}},
			{BindingID: "eu", Match: []Condition{
				{Field: "$.routing.region", Operator: OpEq, Value: "eu-west"},
				{Field: "$.routing.priority", Operator: OpGte, Value: 5},
			}},
		},
	}
	r, err := NewResolver(spec, bindings)
	if err != nil {
		b.Fatal(err)
	}
	env := messaging.NewEnvelope("orders.created", []byte(benchPayload))
	ctx := context.Background()
	return env, func() error {
		plans, err := r.Resolve(ctx, env)
		if err == nil && plans[0].BindingID != "eu" {
			b.Fatalf("resolved %q", plans[0].BindingID)
		}
		return err
	}
}

func BenchmarkRulesResolverJSON1KiB(b *testing.B) {
	env, resolve := benchRulesResolver(b)
	b.SetBytes(int64(env.PayloadLen()))
	b.ReportAllocs()
	for b.Loop() {
		if err := resolve(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMatchHeader(b *testing.B) {
	m, err := Compile([]Condition{
		{Field: "header.x-tenant", Operator: OpEq, Value: "acme"},
		{Field: "x-priority", Operator: OpGt, Value: 3},
		{Field: "subject", Operator: OpPrefix, Value: "orders."},
	})
	if err != nil {
		b.Fatal(err)
	}
	env := messaging.NewEnvelope("orders.created", []byte(benchPayload))
	env.Headers["x-tenant"] = "acme"
	env.Headers["x-priority"] = "7"
	b.ReportAllocs()
	for b.Loop() {
		in := NewInput(env)
		if !m.Match(&in) {
			b.Fatal("no match")
		}
	}
}

func BenchmarkScanJSON1KiB(b *testing.B) {
	tab := newPathTable()
	segs, _ := parsePath("$.routing.region")
	tab.add(segs)
	p := []byte(benchPayload)
	vals := make([]jval, tab.slots)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		if !scanJSON(p, &tab.root, vals) {
			b.Fatal("invalid")
		}
	}
}
