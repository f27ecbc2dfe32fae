package servicetest

import (
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/config"
	. "github.com/gobridge-oss/gobridge/service"
)

// TestMQTTSharedOutboxNeedsResumingSession refuses, at load, a
// shared_outbox route fed by QoS 1 MQTT subscriptions on a session that
// ends with its connection: what paho received but the outbox had not yet
// persisted would be lost when the process stops. The same route on a
// resuming session is admitted.
func TestMQTTSharedOutboxNeedsResumingSession(t *testing.T) {
	reg, err := bundle.Registry()
	if err != nil {
		t.Fatal(err)
	}
	const tmpl = `
bridge: {id: unit}
sessions:
  - {id: broker, type: mqtt, settings: {urls: ["mqtt://127.0.0.1:1883"]SESSION}}
receivers:
  - {id: in, type: mqtt, session_id: broker, settings: {subscriptions: [{topic: "a/#", qos: 1}]}}
senders:
  - {id: out, type: webhook, settings: {url: "http://127.0.0.1:1/x"}}
bindings:
  - {id: b, sender_id: out}
routes:
  - {id: r, receiver_id: in, delivery_mode: shared_outbox, bindings: [b]}
stores:
  outbox: {type: memory}
  dlq: {type: memory}
`
	tests := []struct {
		name    string
		session string
		refused bool
	}{
		{"ephemeral session", "", true},
		{"resuming session", `, client_id: bridge-1, session_expiry: 1h`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := config.Parse([]byte(strings.Replace(tmpl, "SESSION", tt.session, 1)))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Validate(f, reg, nil)
			switch {
			case tt.refused && (err == nil || !strings.Contains(err.Error(), "routes[0].delivery_mode") ||
				!strings.Contains(err.Error(), "shared_outbox: QoS 1/2 subscriptions need a resuming MQTT session")):
				t.Fatalf("Validate = %v; want the shared_outbox route refused at routes[0].delivery_mode", err)
			case !tt.refused && err != nil:
				t.Fatalf("Validate = %v; want it admitted", err)
			}
		})
	}
}
