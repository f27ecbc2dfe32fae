package tenant

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/google/go-cmp/cmp"
)

// TestConfigDefaults covers the specification's configuration table.
func TestConfigDefaults(t *testing.T) {
	want := Config{Name: "tenant", TenantHeader: "x-tenant-id", RequireTenant: false,
		InFlightDecrementTimeout: 2 * time.Second}
	if diff := cmp.Diff(want, DefaultConfig()); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	kept := Config{Name: "t", TenantHeader: "tenant", RequireTenant: true, InFlightDecrementTimeout: time.Second}
	if diff := cmp.Diff(kept, kept.WithDefaults()); diff != "" {
		t.Errorf("explicit values changed (-want +got):\n%s", diff)
	}
	p, err := New(Config{})
	if err != nil || p.Name() != "tenant" || p.Config() != DefaultConfig() {
		t.Errorf("New(zero) = %v, %v", p, err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string // message prefixes
	}{
		{"zero value", Config{}, nil},
		{"custom header", Config{TenantHeader: "tenant-id"}, nil},
		{"reserved header", Config{TenantHeader: "x-bridge.tenant-id"}, []string{`tenant_header: "x-bridge.tenant-id" is in`}},
		{"reserved header any case", Config{TenantHeader: "X-Bridge.Tenant"}, []string{"tenant_header: "}},
		{"negative timeout", Config{InFlightDecrementTimeout: -time.Second}, []string{"in_flight_decrement_timeout: must not be negative"}},
		{"every problem", Config{TenantHeader: "x-bridge.x", InFlightDecrementTimeout: -1},
			[]string{"tenant_header: ", "in_flight_decrement_timeout: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			got := problems(err)
			if len(got) != len(tt.want) {
				t.Fatalf("problems %q, want %q", got, tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("problem %d = %q, want prefix %q", i, got[i], tt.want[i])
				}
			}
			if err != nil && !errors.Is(err, fault.ErrInvalidConfig) {
				t.Errorf("%v is not ErrInvalidConfig", err)
			}
			if _, nerr := New(tt.cfg); (nerr == nil) != (err == nil) {
				t.Errorf("New %v disagrees with Validate %v", nerr, err)
			}
		})
	}
}

func problems(err error) []string {
	var out []string
	if err == nil {
		return nil
	}
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		be, _ := fault.As(e)
		out = append(out, be.Message())
	}
	return out
}

func TestConfigJSONNames(t *testing.T) {
	var c Config
	in := `{"name":"t1","tenant_header":"tenant","require_tenant":true,"in_flight_decrement_timeout":5000000000}`
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	want := Config{Name: "t1", TenantHeader: "tenant", RequireTenant: true, InFlightDecrementTimeout: 5 * time.Second}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
