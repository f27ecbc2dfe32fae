package servicetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/config"
	. "github.com/gobridge-oss/gobridge/service"
	"github.com/google/go-cmp/cmp"
)

// TestMQTTSharedOutboxNeedsResumingSession refuses, at load, a
// shared_outbox route fed by QoS 1 MQTT subscriptions on a session that
// ends with its connection: what paho received but the outbox had not yet
// persisted would be lost when the process stops. The same route on a
// resuming session is admitted.
func TestMQTTSharedOutboxNeedsResumingSession(t *testing.T) {
	reg, err := bundledRegistry()
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

// TestClusteredMQTTSubscriptions: in a clustered deployment the MQTT
// receiver factory (not core) refuses a plain subscription on a route
// every instance runs, and a $share/ subscription on a route that waits
// for its lease, each at the subscription's topic.
func TestClusteredMQTTSubscriptions(t *testing.T) {
	reg, err := bundledRegistry()
	if err != nil {
		t.Fatal(err)
	}
	const tmpl = `
bridge: {id: unit, instance_id: a, deployment: clustered}
sessions:
  - {id: broker, type: mqtt, settings: {urls: ["mqtt://127.0.0.1:1883"], client_id: bridge-1, session_expiry: 1h}}
receivers:
  - {id: in, type: mqtt, session_id: broker, settings: {subscriptions: [{topic: "x/#", qos: 1}, {topic: "TOPIC", qos: 1}]}}
senders:
  - {id: out, type: webhook, settings: {url: "http://127.0.0.1:1/x"}}
bindings:
  - {id: b, sender_id: out}
routes:
  - {id: r, receiver_id: in, bindings: [b]SESSION}
stores:
  lease: {type: sqlite, settings: {path: /tmp/never-opened.db, shared: true}}
  dlq: {type: sqlite, settings: {path: /tmp/never-opened.db, shared: true}}
`
	exclusive := `, session: {session_id: broker, lease_ttl: 10s, broker_health_step_down: off}`
	shared := `, session: {session_id: broker, lease_ttl: 10s, broker_health_step_down: off, connect_after_lease: false}`
	for _, tc := range []struct {
		name, topic, session string
		want                 []config.Problem
	}{
		{"exclusive route, plain topics", "y/#", exclusive, nil},
		{"exclusive route, a shared topic", "$share/g/y/#", exclusive, []config.Problem{{Path: "receivers[0].settings.subscriptions[1].topic",
			Message: "a $share/ subscription is a shared source, run on every instance: set connect_after_lease: false on its route's session"}}},
		{"every instance, a plain topic", "$share/g/y/#", "", []config.Problem{{Path: "receivers[0].settings.subscriptions[0].topic",
			Message: "requires $share/ topic prefix or exclusive session"}}},
		{"every instance through connect_after_lease false", "$share/g/y/#", shared, []config.Problem{{Path: "receivers[0].settings.subscriptions[0].topic",
			Message: "requires $share/ topic prefix or exclusive session"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.NewReplacer("TOPIC", tc.topic, "SESSION", tc.session).Replace(tmpl)
			f, err := config.Parse([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Validate(f, reg, nil)
			var got []config.Problem
			var ps config.Problems
			if errors.As(err, &ps) {
				for _, p := range ps {
					if strings.Contains(p.Path, "subscriptions") {
						got = append(got, p)
					}
				}
			} else if err != nil {
				t.Fatalf("Validate = %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("subscription problems (-want +got):\n%s\nall: %v", diff, err)
			}
		})
	}
}
