package transform

import (
	"context"
	"testing"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// benchPayload is an order event of about 1 KiB.
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

// benchMappings are five typical mappings: a rename, two conversions, a
// value from an array element and a default.
func benchMappings() []FieldMapping {
	return []FieldMapping{
		SimpleMapping("$.customer.name", "output.customer"),
		TransformedMapping("$.order.total", "output.total", TransformString),
		TransformedMapping("$.routing.priority", "output.priority", TransformInt),
		SimpleMapping("$.order.lines[1].sku", "output.first_sku"),
		{Source: "$.customer.vip", Target: "output.vip", Transform: TransformBool, DefaultValue: false},
	}
}

func benchTransform(b *testing.B, cfg Config) {
	tr, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	payload := []byte(benchPayload)
	env := messaging.NewEnvelope("orders.created", payload)
	ctx := context.Background()
	next := func(context.Context, *messaging.Envelope) error { return nil }
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		env.SetPayload(payload)
		if err := tr.Process(ctx, env, next); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTransform5Mappings1KiB applies five mappings to a 1 KiB payload,
// keeping the unmapped fields (the default).
func BenchmarkTransform5Mappings1KiB(b *testing.B) {
	benchTransform(b, Config{Name: "bench", Mappings: benchMappings()})
}

// BenchmarkTransform5Mappings1KiBDropUnmapped builds a new document from
// five mappings of a 1 KiB payload.
func BenchmarkTransform5Mappings1KiBDropUnmapped(b *testing.B) {
	benchTransform(b, Config{Name: "bench", DropUnmapped: true, Mappings: benchMappings()})
}
