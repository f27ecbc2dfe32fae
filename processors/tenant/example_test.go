package tenant_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/processors/tenant"
)

// directory is a toy validator: every tenant may have one delivery in
// flight and 1 KiB payloads.
type directory map[string]bool

func (d directory) Validate(_ context.Context, id string) (tenant.TenantInfo, error) {
	return tenant.TenantInfo{ID: id, Active: d[id], MaxMessageSizeBytes: 1024, MaxInFlight: 1}, nil
}

func ExampleNew() {
	usage := tenant.NewMemoryTracker()
	proc, err := tenant.New(tenant.Config{
		Name:          "my-tenant",
		TenantHeader:  "x-tenant-id",
		RequireTenant: true,
	},
		tenant.WithValidator(directory{"acme": true}),
		tenant.WithUsageTracker(usage),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	msg := func(id any) *messaging.Envelope {
		env := messaging.NewEnvelope("orders.created", []byte(`{}`))
		if id != nil {
			env.SetHeader("x-tenant-id", id)
		}
		return env
	}
	deliver := func(context.Context, *messaging.Envelope) error { return nil }

	fmt.Println(proc.Process(ctx, msg("acme"), deliver))
	fmt.Println(proc.Process(ctx, msg(nil), deliver))
	fmt.Println(proc.Process(ctx, msg("globex"), deliver))

	// While one acme delivery is in flight, a second one is throttled.
	_ = proc.Process(ctx, msg("acme"), func(ctx context.Context, env *messaging.Envelope) error {
		err := proc.Process(ctx, msg("acme"), deliver)
		fmt.Println(errors.Is(err, fault.ErrTenantQuotaExceeded), fault.IsRecoverable(err))
		return nil
	})
	u, _ := usage.Usage(ctx, "acme")
	fmt.Printf("in flight %d, processed %d\n", u.InFlight, u.Processed)
	// Output:
	// <nil>
	// INVALID_PAYLOAD: tenant ID required: header "x-tenant-id" is missing or empty
	// INVALID_PAYLOAD: tenant "globex" is not active
	// true true
	// in flight 0, processed 2
}
