package config

import (
	"testing"
	"testing/fstest"
	"time"

	"github.com/gobridge-oss/gobridge/core/routing"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/google/go-cmp/cmp"
)

func loadFull(t *testing.T) *File {
	t.Helper()
	fsys := fstest.MapFS{
		"secrets/admin-key": {Data: []byte("0123456789abcdefXYZ\n")},
		"full.yaml":         {Data: mustRead(t, "testdata/full.yaml")},
	}
	f, err := Load("/full.yaml", WithFS(fsys), WithEnv([]string{"MQTT_PASSWORD=hunter2"}))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFullExampleIsValid(t *testing.T) {
	f := loadFull(t)
	warns, err := f.ValidateWith(preview)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
}

func TestRuntimePolicy(t *testing.T) {
	f := loadFull(t)
	got := f.Routes[0].RuntimePolicy()
	want := runtime.Policy{
		MaxInFlight: 50, SendTimeout: 30 * time.Second,
		OnExpired: runtime.DLQ, OnPermanentFailure: runtime.DLQ, OnFiltered: runtime.Drop,
		Backoff:           runtime.Backoff{Initial: 2 * time.Second, Max: 120 * time.Second, Multiplier: 2.5, Jitter: ptr(0.2)},
		MaxReplayAttempts: 5, ReplayBudget: 15 * time.Minute,
		Outbox: runtime.OutboxPolicy{
			MaxDepth: 10000, DepthCacheTTL: time.Second, BatchSize: 100, MaxBatchSize: 500, MaxConcurrency: 10,
			Strategy: runtime.DrainStrategy{Type: runtime.AdaptiveBackoff, MinInterval: 500 * time.Millisecond, MaxInterval: 10 * time.Second, Multiplier: 1.5},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RuntimePolicy (-want +got):\n%s", diff)
	}
	if *f.Routes[1].RuntimePolicy().Backoff.Jitter != 0 {
		t.Error("explicit jitter 0 lost in conversion")
	}
	r := &f.Routes[1]
	if r.RuntimeDeliveryMode() != runtime.DirectHold || r.RuntimeDispatchMode() != runtime.Single ||
		f.Routes[0].RuntimeDeliveryMode() != runtime.SharedOutbox {
		t.Error("mode conversions")
	}
}

func TestRoutingSpec(t *testing.T) {
	f := loadFull(t)
	r := &f.Routes[1]
	spec := r.Resolver.RoutingSpec()
	want := routing.ResolverSpec{Type: "rules", DefaultBinding: "bind-default", Rules: []routing.Rule{{
		BindingID: "bind-acme", Match: []routing.Condition{{Field: "header.x-tenant", Operator: routing.OpEq, Value: "acme"}},
	}}}
	if diff := cmp.Diff(want, spec); diff != "" {
		t.Errorf("RoutingSpec (-want +got):\n%s", diff)
	}
	bindings := f.RoutingBindings(r)
	if diff := cmp.Diff([]routing.Binding{{ID: "bind-acme", Address: "acme"}, {ID: "bind-default", Address: "default"}}, bindings); diff != "" {
		t.Errorf("RoutingBindings (-want +got):\n%s", diff)
	}
	if _, err := routing.NewResolver(spec, bindings); err != nil {
		t.Errorf("routing.NewResolver rejects the converted spec: %v", err)
	}
	var none *Resolver
	if diff := cmp.Diff(routing.ResolverSpec{}, none.RoutingSpec()); diff != "" {
		t.Errorf("nil resolver: %s", diff)
	}
}

func TestCadence(t *testing.T) {
	tests := []struct {
		name string
		s    RouteSession
		want Cadence
	}{
		{"defaults", RouteSession{}, Cadence{LeaseTTL: 360 * time.Second, MaxRenewFails: 3, RenewInterval: 112499 * time.Millisecond,
			RenewJitter: 5 * time.Second, RenewCallTimeout: 5 * time.Second, AcquirePollInterval: 5 * time.Second}},
		{"pinned", RouteSession{LeaseTTL: 60 * time.Second, RenewInterval: 12 * time.Second}, Cadence{LeaseTTL: time.Minute, MaxRenewFails: 3,
			RenewInterval: 12 * time.Second, RenewJitter: 500 * time.Millisecond, RenewCallTimeout: 5 * time.Second, AcquirePollInterval: 5 * time.Second, Pinned: true}},
		{"jitter trimmed", RouteSession{LeaseTTL: 5 * time.Second, MaxRenewFails: 3, LeaseRenewJitter: 2 * time.Second}, Cadence{LeaseTTL: 5 * time.Second,
			MaxRenewFails: 3, RenewInterval: 250 * time.Millisecond, RenewJitter: 831 * time.Millisecond, RenewCallTimeout: time.Second,
			AcquirePollInterval: 250 * time.Millisecond, JitterTrimmed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.s.Cadence()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Cadence (-want +got):\n%s", diff)
			}
			if got.RenewSpan() >= got.LeaseTTL {
				t.Errorf("renew span %s not below lease %s", got.RenewSpan(), got.LeaseTTL)
			}
		})
	}
}
