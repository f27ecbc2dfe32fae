package servicebus

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestReceiverConfigDefaults(t *testing.T) {
	got := ReceiverConfig{Queue: "q", Client: ClientConfig{Namespace: "ns.servicebus.windows.net"}}.WithDefaults()
	want := ReceiverConfig{Queue: "q", Client: ClientConfig{Namespace: "ns.servicebus.windows.net", Credential: CredentialConfig{Kind: CredentialDefault}},
		Links: 1, ReceiveWait: ptr(5 * time.Millisecond), MaxSessions: 8, SessionIdleTimeout: 2 * time.Second, Retry: RetryAbandon, OnPermanent: PermanentDLQ, Linger: ptr(2 * time.Second)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("defaults do not validate: %v", err)
	}
}

// Validate names every problem's field, and never quotes the secret.
func TestConfigValidate(t *testing.T) {
	cs := ClientConfig{ConnectionString: testConnString}
	tests := []struct {
		name   string
		err    error
		fields []string
	}{
		{"no client, no entity", ReceiverConfig{}.WithDefaults().Validate(), []string{"client.connection_string", "queue"}},
		{"both", ReceiverConfig{Client: ClientConfig{ConnectionString: testConnString, Namespace: "a.b"}, Queue: "q"}.WithDefaults().Validate(),
			[]string{"client.namespace"}},
		{"bad connection string", ReceiverConfig{Client: ClientConfig{ConnectionString: "Endpoint=http://x;SharedAccessKey=topsecret"}, Queue: "q"}.WithDefaults().Validate(),
			[]string{"client.connection_string"}},
		{"credential with connection string", ReceiverConfig{Client: ClientConfig{ConnectionString: testConnString, Credential: CredentialConfig{Kind: "default"}}, Queue: "q"}.WithDefaults().Validate(),
			[]string{"client.credential"}},
		{"client secret incomplete", SenderConfig{Client: ClientConfig{Namespace: "ns.servicebus.windows.net", Credential: CredentialConfig{Kind: CredentialClientSecret}}}.WithDefaults().Validate(),
			[]string{"client.credential.tenant_id", "client.credential.client_id", "client.credential.client_secret"}},
		{"bad namespace", SenderConfig{Client: ClientConfig{Namespace: "https://ns/"}}.WithDefaults().Validate(), []string{"client.namespace"}},
		{"queue and topic", ReceiverConfig{Client: cs, Queue: "q", Topic: "t"}.WithDefaults().Validate(), []string{"queue"}},
		{"topic alone", ReceiverConfig{Client: cs, Topic: "t"}.WithDefaults().Validate(), []string{"subscription"}},
		{"bad names", ReceiverConfig{Client: cs, Topic: "-t", Subscription: "a/b"}.WithDefaults().Validate(), []string{"topic", "subscription"}},
		{"ranges", ReceiverConfig{Client: cs, Queue: "q", MaxMessages: 5001, MaxSessions: -1, Links: 17, SessionIdleTimeout: time.Millisecond,
			Retry: "schedule", OnPermanent: "drop", Linger: ptr(time.Duration(-1)), ReceiveWait: ptr(2 * time.Second)}.WithDefaults().Validate(),
			[]string{"max_messages", "links", "max_sessions", "session_idle_timeout", "retry", "on_permanent", "linger", "receive_wait"}},
		{"sender ranges", SenderConfig{Client: cs, Entity: "a b", BatchWindow: ptr(2 * time.Second)}.WithDefaults().Validate(), []string{"entity", "batch_window"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil {
				t.Fatal("Validate accepted it")
			}
			msg := tt.err.Error()
			for _, f := range tt.fields {
				if !strings.Contains(msg, f+":") {
					t.Errorf("no problem names %s: %v", f, msg)
				}
			}
			if strings.Contains(msg, "topsecret") || strings.Contains(msg, "secret;") {
				t.Errorf("the problem quotes the key: %v", msg)
			}
		})
	}
}

func TestConfigAccepts(t *testing.T) {
	cs := ClientConfig{ConnectionString: testConnString}
	for _, c := range []interface{ Validate() error }{
		ReceiverConfig{Client: cs, Topic: "orders/eu", Subscription: "audit_1"}.WithDefaults(),
		ReceiverConfig{Client: cs, Queue: "q", Sessions: true, MaxSessions: 4, Retry: RetryOff, OnPermanent: PermanentDeadLetter}.WithDefaults(),
		ReceiverConfig{Client: ClientConfig{ConnectionString: "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessSignature=SharedAccessSignature sr=x&sig=y"}, Queue: "q"}.WithDefaults(),
		SenderConfig{Client: ClientConfig{Namespace: "ns.servicebus.windows.net", Credential: CredentialConfig{Kind: CredentialClientSecret, TenantID: "t", ClientID: "c", ClientSecret: "s"}}}.WithDefaults(),
		SenderConfig{Client: ClientConfig{Namespace: "ns.servicebus.windows.net", Credential: CredentialConfig{Kind: CredentialWorkloadIdentity}}, Entity: "t"}.WithDefaults(),
	} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// A zero receive_wait or linger written in the settings keeps its
// documented meaning (never wait; close the links at once) instead of
// being taken for an unset field and replaced by the default.
func TestConfigZeroDurationsKeepTheirMeaning(t *testing.T) {
	type waits struct{ ReceiveWait, Linger time.Duration }
	tests := []struct {
		name     string
		settings map[string]any
		want     waits
	}{
		{"unset", map[string]any{}, waits{DefaultReceiveWait, DefaultLinger}},
		{"zero strings", map[string]any{"receive_wait": "0s", "linger": "0s"}, waits{0, 0}},
		{"zero numbers", map[string]any{"receive_wait": 0, "linger": 0}, waits{0, 0}},
		{"set", map[string]any{"receive_wait": "20ms", "linger": "1s"}, waits{20 * time.Millisecond, time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settings := map[string]any{"queue": "orders", "client": map[string]any{"connection_string": testConnString}}
			for k, v := range tt.settings {
				settings[k] = v
			}
			c, err := ReceiverFactory().Decode(settings)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			cfg := c.(ReceiverConfig)
			got := waits{*cfg.ReceiveWait, *cfg.Linger}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
