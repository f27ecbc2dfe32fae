package mqtt

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// TestAdmitRoute covers the MQTT admission of a route in both delivery
// modes: QoS 1/2 needs a resuming session whatever the mode (a
// shared_outbox route behind an ephemeral session used to be admitted and
// lost what paho had received but the outbox had not yet persisted), and
// a DLQ store or allow_retry_drop, where a retry that would stall the
// session goes; QoS 0 needs the latter only in direct_hold.
func TestAdmitRoute(t *testing.T) {
	resuming := SessionConfig{ClientID: "b1", SessionExpiry: time.Hour}
	ephemeral := SessionConfig{}
	qos := func(qs ...int) ReceiverConfig {
		var c ReceiverConfig
		for i, q := range qs {
			c.Subscriptions = append(c.Subscriptions, SubscriptionConfig{Topic: "t/" + string(rune('a'+i)), QoS: IntPtr(q)})
		}
		return c
	}
	dlq := RouteFacts{HasDLQ: true}
	drop := RouteFacts{AllowRetryDrop: true}
	outbox := func(f RouteFacts) RouteFacts { f.DeliveryMode = ModeSharedOutbox; return f }
	tests := []struct {
		name     string
		session  SessionConfig
		receiver ReceiverConfig
		route    RouteFacts
		want     []string // one substring per problem
	}{
		{"qos1 on a resuming session with a DLQ", resuming, qos(1), dlq, nil},
		{"qos2 on a resuming session with allow_retry_drop", resuming, qos(2), drop, nil},
		{"default qos is 1", resuming, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: "t"}}}, dlq, nil},
		{"qos1 without a DLQ", resuming, qos(1), RouteFacts{}, []string{"direct_hold: QoS 1/2 subscriptions need stores.dlq"}},
		{"qos1 on an ephemeral session", ephemeral, qos(1), dlq, []string{"direct_hold: QoS 1/2 subscriptions need a resuming"}},
		{"qos1 with clean start", SessionConfig{ClientID: "b1", SessionExpiry: time.Hour, CleanStart: true}, qos(1), dlq,
			[]string{"resuming"}},
		{"qos0 with a DLQ on an ephemeral session", ephemeral, qos(0), dlq, nil},
		{"qos0 with allow_retry_drop", ephemeral, qos(0), drop, nil},
		{"qos0 alone", ephemeral, qos(0), RouteFacts{}, []string{"QoS 0 subscriptions are best effort"}},
		{"mixed on an ephemeral session", ephemeral, qos(0, 1), dlq, []string{"resuming"}},
		{"mixed on a resuming session", resuming, qos(0, 2), dlq, nil},
		{"mixed, nothing right", ephemeral, qos(0, 1), RouteFacts{}, []string{"resuming", "stores.dlq"}},

		{"shared_outbox: qos1 on an ephemeral session", ephemeral, qos(1), outbox(dlq),
			[]string{"shared_outbox: QoS 1/2 subscriptions need a resuming"}},
		{"shared_outbox: qos2 with clean start", SessionConfig{ClientID: "b1", SessionExpiry: time.Hour, CleanStart: true}, qos(2), outbox(drop),
			[]string{"resuming"}},
		{"shared_outbox: qos1 on a resuming session with a DLQ", resuming, qos(1), outbox(dlq), nil},
		{"shared_outbox: qos1 without a DLQ", resuming, qos(1), outbox(RouteFacts{}), []string{"stores.dlq"}},
		{"shared_outbox: qos0 on an ephemeral session without a DLQ", ephemeral, qos(0), outbox(RouteFacts{}), nil},
		{"shared_outbox: mixed on an ephemeral session", ephemeral, qos(0, 1), outbox(dlq), []string{"resuming"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := AdmitRoute(tt.session, tt.receiver, tt.route)
			var got []error
			if err != nil {
				got = err.(interface{ Unwrap() []error }).Unwrap()
				if fault.CodeOf(err) != fault.CodeInvalidConfig {
					t.Errorf("code %s, want INVALID_CONFIG", fault.CodeOf(err))
				}
			}
			if diff := cmp.Diff(len(tt.want), len(got)); diff != "" {
				t.Fatalf("problems (-want +got):\n%s\n%v", diff, err)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i].Error(), w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

// TestReceiverFactoryAdmitsSharedOutboxRoutes checks that the factory's
// admission hook, which the distro calls for every route, applies the
// resuming-session rule to shared_outbox routes too.
func TestReceiverFactoryAdmitsSharedOutboxRoutes(t *testing.T) {
	adm, ok := ReceiverFactory().(registry.Admitter)
	if !ok {
		t.Fatal("the receiver factory is not a registry.Admitter")
	}
	rc := ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: "a/#", QoS: IntPtr(1)}}}
	facts := registry.RouteFacts{RouteID: "r", DeliveryMode: ModeSharedOutbox, HasDLQ: true}
	err := adm.Admit(rc, SessionConfig{URLs: []string{"mqtt://127.0.0.1:1883"}}, facts)
	if err == nil || !strings.Contains(err.Error(), "routes[r]: shared_outbox: QoS 1/2 subscriptions need a resuming MQTT session") {
		t.Errorf("Admit = %v, want the shared_outbox route refused for its non-resuming session", err)
	}
	if err := adm.Admit(rc, SessionConfig{ClientID: "c", SessionExpiry: time.Hour}, facts); err != nil {
		t.Errorf("Admit on a resuming session = %v, want nil", err)
	}
}
