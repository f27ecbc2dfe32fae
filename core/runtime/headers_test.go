package runtime_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

func TestIngressHeadersAndAddress(t *testing.T) {
	inbound := map[string]any{
		"app":                             "kept",
		"X-Bridge.Tenant-Id":              "spoofed",
		messaging.HeaderCorrelationID:     "corr-upstream",
		messaging.HeaderRouteOverride:     "b2",
		messaging.HeaderRouteID:           "forged",
		messaging.HeaderTraceParent:       "00-abc-def-01",
		"x-bridge.something-nobody-knows": 1,
	}
	tests := []struct {
		name  string
		trust bool
		want  map[string]any
	}{
		{
			name: "untrusted strips every reserved header and mints a correlation id",
			want: map[string]any{
				"app":                         "kept",
				messaging.HeaderTraceParent:   "00-abc-def-01",
				messaging.HeaderCorrelationID: "<id>",
				messaging.HeaderRouteID:       "r1",
				messaging.HeaderSourceID:      "src",
			},
		},
		{
			name:  "trusted keeps propagated headers only",
			trust: true,
			want: map[string]any{
				"app":                         "kept",
				messaging.HeaderTraceParent:   "00-abc-def-01",
				messaging.HeaderTenantID:      "spoofed",
				messaging.HeaderCorrelationID: "corr-upstream",
				messaging.HeaderRouteID:       "r1",
				messaging.HeaderSourceID:      "src",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recv := memtransport.NewReceiver(memtransport.Options{})
			snd := memtransport.NewSender(memtransport.SenderOptions{})
			start(t, []runtime.Route{{
				ID: "r1", ReceiverID: "src", Receiver: recv, TrustBridgeHeaders: tc.trust,
				Policy: runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
				Bindings: []runtime.Binding{
					{ID: "b1", Sender: snd, Address: "topic/one", Headers: map[string]any{"x-binding": "yes"}},
					{ID: "b2", Sender: snd, Address: "topic/two"},
				},
			}}, runtime.Options{})

			env := messaging.NewEnvelope("orders.created", []byte("payload"))
			env.Headers = messaging.CloneHeaders(inbound)
			publish(t, recv, env)
			if err := snd.WaitSent(waitCtx(t), 1); err != nil {
				t.Fatal(err)
			}
			out := snd.Sent()[0]
			if out.Address != "topic/one" {
				t.Errorf("address %q, want topic/one (the override header must not steer routing)", out.Address)
			}
			if out.Envelope.Subject != "orders.created" {
				t.Errorf("subject %q changed; it must stay the logical subject", out.Envelope.Subject)
			}
			want := maps(tc.want, env.ID)
			want["x-binding"] = "yes"
			if diff := cmp.Diff(want, out.Envelope.Headers); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

// maps replaces the "<id>" placeholder with the message ID.
func maps(in map[string]any, id string) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		if v == "<id>" {
			v = id
		}
		out[k] = v
	}
	return out
}

// overrideTo is a processor that steers every message to binding id.
type overrideTo string

func (overrideTo) Name() string { return "override" }
func (o overrideTo) Process(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
	env.Headers[messaging.HeaderRouteOverride] = string(o)
	return next(ctx, env)
}

// TestProcessorOverrideSteersTheDefaultResolver: ingress strips an
// inbound route override (see above), but one a processor sets still
// picks the binding, with either default resolver.
func TestProcessorOverrideSteersTheDefaultResolver(t *testing.T) {
	for _, mode := range []runtime.DispatchMode{runtime.Single, runtime.FanOut} {
		t.Run(string(mode), func(t *testing.T) {
			recv := memtransport.NewReceiver(memtransport.Options{})
			snd := memtransport.NewSender(memtransport.SenderOptions{})
			start(t, []runtime.Route{{
				ID: "r1", Receiver: recv, DispatchMode: mode, Processors: []ports.Processor{overrideTo("b2")},
				Policy: runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
				Bindings: []runtime.Binding{
					{ID: "b1", Sender: snd, Address: "topic/one"},
					{ID: "b2", Sender: snd, Address: "topic/two"},
				},
			}}, runtime.Options{})
			publish(t, recv, messaging.NewEnvelope("orders.created", []byte("payload")))
			if err := snd.WaitSent(waitCtx(t), 1); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range snd.Sent() {
				got = append(got, m.Address)
			}
			if diff := cmp.Diff([]string{"topic/two"}, got); diff != "" {
				t.Errorf("addresses (-want +got):\n%s", diff)
			}
		})
	}
}
