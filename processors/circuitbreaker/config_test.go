package circuitbreaker

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestConfigDefaults covers the specification's configuration table.
func TestConfigDefaults(t *testing.T) {
	got := DefaultConfig()
	want := Config{Name: "circuitbreaker", FailureThreshold: 5, SuccessThreshold: 2,
		ResetTimeout: 30 * time.Second, HalfOpenMaxProbes: 1, Key: KeyGlobal}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	kept := Config{Name: "n", FailureThreshold: 10, SuccessThreshold: 3, ResetTimeout: time.Minute,
		HalfOpenMaxProbes: 2, Key: KeyHeader, HeaderKey: "tenant-id"}
	if diff := cmp.Diff(kept, kept.WithDefaults()); diff != "" {
		t.Errorf("explicit values changed (-want +got):\n%s", diff)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string // message prefixes, in order
	}{
		{"zero value", Config{}, nil},
		{"subject key", Config{Key: KeySubject}, nil},
		{"header key", Config{Key: KeyHeader, HeaderKey: "tenant-id"}, nil},
		{"header without name", Config{Key: KeyHeader}, []string{"header_key: is required"}},
		{"header name without header key", Config{Key: KeySubject, HeaderKey: "x"}, []string{"header_key: only used"}},
		{"unknown key", Config{Key: "tenant"}, []string{`key: "tenant" is invalid`}},
		{"every problem at once", Config{FailureThreshold: -1, SuccessThreshold: -1, ResetTimeout: -1,
			HalfOpenMaxProbes: -1, Key: "x"}, []string{
			"failure_threshold: must not be negative", "success_threshold: must not be negative",
			"reset_timeout: must not be negative", "half_open_max_probes: must not be negative", `key: "x" is invalid`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			got := problems(err)
			if len(got) != len(tt.want) {
				t.Fatalf("problems = %q, want %d matching %q", got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("problem %d = %q, want prefix %q", i, got[i], tt.want[i])
				}
			}
			if err != nil && !errors.Is(err, fault.ErrInvalidConfig) {
				t.Errorf("error %v is not ErrInvalidConfig", err)
			}
			if _, nerr := New(tt.cfg); (nerr == nil) != (err == nil) {
				t.Errorf("New error %v disagrees with Validate %v", nerr, err)
			}
		})
	}
}

// problems flattens a joined validation error into its messages.
func problems(err error) []string {
	var out []string
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		if be, ok := fault.As(e); ok {
			out = append(out, be.Message())
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}

func TestConfigJSONNames(t *testing.T) {
	var c Config
	in := `{"name":"cb","failure_threshold":7,"success_threshold":3,"reset_timeout":1000000000,
		"half_open_max_probes":2,"key":"header","header_key":"tenant-id"}`
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	want := Config{Name: "cb", FailureThreshold: 7, SuccessThreshold: 3, ResetTimeout: time.Second,
		HalfOpenMaxProbes: 2, Key: KeyHeader, HeaderKey: "tenant-id"}
	if diff := cmp.Diff(want, c, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
}
