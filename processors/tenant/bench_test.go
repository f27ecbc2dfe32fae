package tenant

import (
	"context"
	"testing"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// staticValidator answers every tenant with the same info, without
// allocating, so the benchmark measures the processor.
type staticValidator struct{ info TenantInfo }

func (s staticValidator) Validate(context.Context, string) (TenantInfo, error) { return s.info, nil }

// BenchmarkTenantProcess is the full path: header, validator, quota read,
// in-flight +1, next, and the release under a settlement scope fired as
// the runtime would.
func BenchmarkTenantProcess(b *testing.B) {
	p, err := New(Config{}, WithValidator(staticValidator{active("acme", 1<<20, 1000)}),
		WithUsageTracker(NewMemoryTracker()))
	if err != nil {
		b.Fatal(err)
	}
	var scope ports.SettleScope
	ctx := ports.WithSettleScope(context.Background(), &scope)
	env := messaging.NewEnvelope("orders", []byte(`{"id":1}`))
	env.Headers["x-tenant-id"] = "acme"
	next := func(context.Context, *messaging.Envelope) error { return nil }
	acked := ports.Settlement{Outcome: ports.SettledAcked, Terminal: true}
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Process(ctx, env, next); err != nil {
			b.Fatal(err)
		}
		scope.Fire(acked)
	}
}

// BenchmarkTenantProcessNoTracker is identity resolution and validation
// only.
func BenchmarkTenantProcessNoTracker(b *testing.B) {
	p, err := New(Config{}, WithValidator(staticValidator{active("acme", 1<<20, 0)}))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	env := messaging.NewEnvelope("orders", []byte(`{"id":1}`))
	env.Headers["x-tenant-id"] = "acme"
	next := func(context.Context, *messaging.Envelope) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Process(ctx, env, next); err != nil {
			b.Fatal(err)
		}
	}
}
