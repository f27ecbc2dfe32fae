package runtime_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

func TestNewRejectsBadRoutes(t *testing.T) {
	snd := memtransport.NewSender(memtransport.SenderOptions{})
	ok := func() runtime.Route {
		return runtime.Route{
			ID: "r", Receiver: memtransport.NewReceiver(memtransport.Options{}),
			Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
		}
	}
	with := func(f func(*runtime.Route)) runtime.Route { r := ok(); f(&r); return r }
	tests := []struct {
		name   string
		routes []runtime.Route
		noDLQ  bool
		want   []string
	}{
		{"no routes", nil, false, []string{"at least one route is required"}},
		{"missing id and receiver", []runtime.Route{with(func(r *runtime.Route) { r.ID = ""; r.Receiver = nil })}, false,
			[]string{"routes[0].id: is required", "routes[0].receiver_id: no receiver given"}},
		{"duplicate route ids", []runtime.Route{ok(), ok()}, false, []string{`routes[1].id: duplicate id "r"`}},
		{"no bindings", []runtime.Route{with(func(r *runtime.Route) { r.Bindings = nil })}, false,
			[]string{"routes[0].bindings: at least one binding is required"}},
		{"binding without sender", []runtime.Route{with(func(r *runtime.Route) { r.Bindings[0].Sender = nil })}, false,
			[]string{`routes[0].bindings[0].sender_id: no sender given for binding "b"`}},
		{"bad modes", []runtime.Route{with(func(r *runtime.Route) { r.DeliveryMode = "later"; r.DispatchMode = "some" })}, false,
			[]string{`routes[0].delivery_mode: "later" is invalid`, `routes[0].dispatch_mode: "some" is invalid`}},
		{"outbox without store", []runtime.Route{with(func(r *runtime.Route) { r.DeliveryMode = runtime.SharedOutbox })}, false,
			[]string{"routes[0].delivery_mode: shared_outbox requires stores.outbox"}},
		{"backoff rules", []runtime.Route{with(func(r *runtime.Route) {
			r.Policy.Backoff = runtime.Backoff{Initial: -1, Max: -1, Multiplier: 0.5, Jitter: ptr(1.5)}
		})}, false, []string{
			"routes[0].policy.backoff.initial_interval: must not be negative",
			"routes[0].policy.backoff.max_interval: must not be negative",
			"routes[0].policy.backoff.multiplier: must be >= 1, got 0.5",
			"routes[0].policy.backoff.jitter: must be within [0,1], got 1.5",
		}},
		{"negative limits", []runtime.Route{with(func(r *runtime.Route) {
			r.Policy.MaxInFlight, r.Policy.SendTimeout, r.Policy.MaxReplayAttempts, r.Policy.ReplayBudget = -1, -1, -1, -1
		})}, false, []string{"policy.max_in_flight: must be within [0,1000000], got -1", "policy.send_timeout", "policy.max_replay_attempts", "policy.replay_budget"}},
		{"bad action", []runtime.Route{with(func(r *runtime.Route) { r.Policy.OnFiltered = "shred" })}, false,
			[]string{`routes[0].policy.on_filtered: "shred" is invalid; must be one of: drop, dlq`}},
		{"dlq defaults need a DLQ store", []runtime.Route{ok()}, true,
			[]string{"routes[0].policy.on_expired: dlq requires stores.dlq", "routes[0].policy.on_permanent_failure: dlq requires stores.dlq"}},
		{"outbox drain settings", []runtime.Route{with(func(r *runtime.Route) {
			r.DeliveryMode = runtime.SharedOutbox
			r.Policy.Outbox = runtime.OutboxPolicy{
				MaxDepth: -1, Interval: time.Second, BatchSize: 10, MaxBatchSize: 5,
				Strategy: runtime.DrainStrategy{Type: "sometimes", MinInterval: 2 * time.Second, MaxInterval: time.Second, Multiplier: 1},
			}
		})}, false, []string{
			"routes[0].delivery_mode: shared_outbox requires stores.outbox",
			"policy.outbox.max_outbox_depth: must not be negative",
			"policy.outbox.drain_interval: drain_strategy and drain_interval are mutually exclusive",
			`policy.outbox.drain_strategy.type: "sometimes" is invalid`,
			"policy.outbox.drain_strategy.min_interval: must not exceed max_interval",
			"policy.outbox.drain_strategy.multiplier: must be > 1, got 1",
			"policy.outbox.drain_max_batch_size: must be at least drain_batch_size (5 < 10)",
		}},
		{"source that cannot retry needs a DLQ or allow_retry_drop", []runtime.Route{with(func(r *runtime.Route) {
			r.Receiver = memtransport.NewReceiver(memtransport.Options{NoRetry: true})
			r.Policy.OnExpired, r.Policy.OnPermanentFailure = runtime.Drop, runtime.Drop
		})}, true, []string{"routes[0].receiver_id: the receiver cannot retry and no DLQ store is configured"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := runtime.Options{}
			if !tc.noDLQ {
				opts.DLQ = newMemDLQ()
			}
			_, err := runtime.New(tc.routes, opts)
			if err == nil {
				t.Fatal("New accepted an invalid route")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
			if !errors.Is(err, fault.ErrInvalidConfig) {
				t.Errorf("error is not INVALID_CONFIG: %v", err)
			}
		})
	}
}

func TestNewAcceptsAllowRetryDrop(t *testing.T) {
	_, err := runtime.New([]runtime.Route{{
		ID: "r", Receiver: memtransport.NewReceiver(memtransport.Options{NoRetry: true}),
		Policy:   runtime.Policy{AllowRetryDrop: true, OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
		Bindings: []runtime.Binding{{ID: "b", Sender: memtransport.NewSender(memtransport.SenderOptions{})}},
	}}, runtime.Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
}
