package tenant

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestProcess covers identity resolution, RequireTenant and the validator
// rows of the specification.
func TestProcess(t *testing.T) {
	validator := &fakeValidator{infos: map[string]TenantInfo{
		"acme":   active("acme", 10, 0),
		"42":     active("42", 0, 0),
		"big":    active("big", 0, 0),
		"asleep": {ID: "asleep", Active: false},
	}}
	type result struct {
		Code       fault.Code
		Class      fault.Class
		MsgHas     string
		NextCalled bool
		Reason     string // the only rejects counter that moved
		Untenanted float64
	}
	tests := []struct {
		name string
		cfg  Config
		val  TenantValidator
		env  *messaging.Envelope
		want result
	}{
		{"absent header passes untenanted", Config{}, validator, envWith("x-tenant-id", nil, ""),
			result{NextCalled: true, Untenanted: 1}},
		{"empty header passes untenanted", Config{}, validator, envWith("x-tenant-id", "", ""),
			result{NextCalled: true, Untenanted: 1}},
		{"nil envelope passes untenanted", Config{}, validator, nil,
			result{NextCalled: true, Untenanted: 1}},
		{"absent header refused when required", Config{RequireTenant: true}, validator, envWith("x-tenant-id", nil, ""),
			result{fault.CodeInvalidPayload, fault.ClassRejected, "tenant ID required", false, ReasonMissingRequired, 0}},
		{"empty header refused when required", Config{RequireTenant: true}, validator, envWith("x-tenant-id", []byte{}, ""),
			result{fault.CodeInvalidPayload, fault.ClassRejected, "tenant ID required", false, ReasonMissingRequired, 0}},
		{"fractional number is malformed, not missing", Config{}, validator, envWith("x-tenant-id", 1.5, ""),
			result{fault.CodeInvalidPayload, fault.ClassRejected, `tenant header "x-tenant-id"`, false, ReasonMalformed, 0}},
		{"wrong type is malformed", Config{}, validator, envWith("x-tenant-id", map[string]any{}, ""),
			result{fault.CodeInvalidPayload, fault.ClassRejected, "cannot be a tenant ID", false, ReasonMalformed, 0}},
		{"integral float is coerced", Config{}, validator, envWith("x-tenant-id", 42.0, ""),
			result{NextCalled: true}},
		{"active tenant passes", Config{}, validator, envWith("x-tenant-id", "acme", "0123456789"),
			result{NextCalled: true}},
		{"inactive tenant refused", Config{}, validator, envWith("x-tenant-id", "asleep", ""),
			result{fault.CodeInvalidPayload, fault.ClassRejected, `tenant "asleep" is not active`, false, ReasonInactive, 0}},
		{"unknown tenant refused as inactive", Config{}, validator, envWith("x-tenant-id", "nobody", ""),
			result{fault.CodeInvalidPayload, fault.ClassRejected, "not active", false, ReasonInactive, 0}},
		{"payload above the tenant cap", Config{}, validator, envWith("x-tenant-id", "acme", "0123456789A"),
			result{fault.CodePayloadTooLarge, fault.ClassRejected, "11 bytes exceeds the 10-byte limit", false, ReasonPayloadTooLarge, 0}},
		{"no cap when MaxMessageSizeBytes is 0", Config{}, validator, envWith("x-tenant-id", "big", strings.Repeat("x", 1<<16)),
			result{NextCalled: true}},
		{"without a validator any ID passes", Config{}, nil, envWith("x-tenant-id", "anyone", ""),
			result{NextCalled: true}},
		{"custom header", Config{TenantHeader: "tenant"}, validator, envWith("tenant", "asleep", ""),
			result{fault.CodeInvalidPayload, fault.ClassRejected, "not active", false, ReasonInactive, 0}},
		{"transient validator error retries", Config{}, &fakeValidator{err: fault.ErrConnectionLost}, envWith("x-tenant-id", "acme", ""),
			result{fault.CodeUnavailable, fault.ClassTransient, "tenant validator failed", false, ReasonValidatorError, 0}},
		{"unknown validator error retries", Config{}, &fakeValidator{err: errors.New("db down")}, envWith("x-tenant-id", "acme", ""),
			result{fault.CodeUnavailable, fault.ClassTransient, "tenant validator failed", false, ReasonValidatorError, 0}},
		{"permanent validator error keeps its class", Config{}, &fakeValidator{err: fault.ErrForbidden}, envWith("x-tenant-id", "acme", ""),
			result{fault.CodeForbidden, fault.ClassPermanent, "", false, ReasonValidatorError, 0}},
	}
	reasons := []string{ReasonMissingRequired, ReasonMalformed, ReasonInactive, ReasonPayloadTooLarge,
		ReasonValidatorError, ReasonQuotaInFlight}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := telemetry.NewMemory()
			opts := []Option{WithMeter(mem)}
			if tt.val != nil {
				opts = append(opts, WithValidator(tt.val))
			}
			p, err := New(tt.cfg, opts...)
			if err != nil {
				t.Fatal(err)
			}
			var got result
			err = p.Process(context.Background(), tt.env, func(context.Context, *messaging.Envelope) error {
				got.NextCalled = true
				return nil
			})
			got.Code, got.Class = fault.CodeOf(err), fault.ClassOf(err)
			if err != nil && strings.Contains(err.Error(), tt.want.MsgHas) {
				got.MsgHas = tt.want.MsgHas
			}
			for _, r := range reasons {
				if mem.Value("gobridge_tenant_rejects_total", "tenant", r) == 1 {
					got.Reason = r
				}
			}
			got.Untenanted = mem.Value("gobridge_tenant_untenanted_total", "tenant")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nerr: %v", diff, err)
			}
		})
	}
	if diff := cmp.Diff("42", validator.seen[0]); diff != "" {
		t.Errorf("validator did not see the coerced ID (-want +got):\n%s", diff)
	}
}

func TestRejectAttrs(t *testing.T) {
	p, _ := New(Config{Name: "t1"}, WithValidator(&fakeValidator{}))
	err := p.Process(context.Background(), envWith("x-tenant-id", "gone", ""), nil)
	be, _ := fault.As(err)
	want := []fault.Attr{{Key: "processor", Value: "t1"}, {Key: "header", Value: "x-tenant-id"},
		{Key: "reason", Value: "inactive"}, {Key: "tenant", Value: "gone"}}
	if diff := cmp.Diff(want, be.Attrs(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("attrs (-want +got):\n%s", diff)
	}
}

func TestNextErrorPassesThrough(t *testing.T) {
	p, _ := New(Config{}, WithUsageTracker(NewMemoryTracker()))
	boom := fault.ErrTimeout.With("binding", "b")
	err := p.Process(context.Background(), envWith("x-tenant-id", "acme", ""),
		func(context.Context, *messaging.Envelope) error { return boom })
	if err != boom {
		t.Errorf("Process = %v, want the error of next", err)
	}
}
