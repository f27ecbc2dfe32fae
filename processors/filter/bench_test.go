package filter

import (
	"context"
	"testing"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// benchPayload is an order event of about 1 KiB; the field the JSON
// benchmark reads sits near its end.
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

func nextOK(context.Context, *messaging.Envelope) error { return nil }

func benchFilter(b *testing.B, cfg Config, setBytes bool) {
	f := mustNew(b, cfg)
	env := messaging.NewEnvelope("orders.created", []byte(benchPayload))
	env.Headers["x-env"] = "prod"
	env.Headers["x-tenant"] = "acme"
	ctx := context.Background()
	if setBytes {
		b.SetBytes(int64(env.PayloadLen()))
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := f.Process(ctx, env, nextOK); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFilterHeader measures a drop filter on one header that lets the
// message through: the common path of a header filter.
func BenchmarkFilterHeader(b *testing.B) {
	benchFilter(b, Config{Name: "bench", Action: ActionDrop,
		Conditions: []Condition{{Field: "header.x-env", Operator: OperatorEquals, Value: "staging"}}}, false)
}

// BenchmarkFilterJSON1KiB measures a pass filter on a $. field near the end
// of a 1 KiB payload.
func BenchmarkFilterJSON1KiB(b *testing.B) {
	benchFilter(b, Config{Name: "bench", Action: ActionPass,
		Conditions: []Condition{{Field: "$.routing.region", Operator: OperatorEquals, Value: "eu-west"}}}, true)
}

// BenchmarkFilterRouteHeader measures a route filter that sets the route
// override on every message.
func BenchmarkFilterRouteHeader(b *testing.B) {
	benchFilter(b, Config{Name: "bench", Action: ActionRoute, RouteTo: "b1",
		Conditions: []Condition{{Field: "x-tenant", Operator: OperatorIn, Value: []any{"acme", "globex"}}}}, false)
}
