package mqtt

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// TestConfigsDecodeThroughTheRegistry decodes the README's settings blocks
// through this module's factories, the way the distro does (yaml tags,
// durations as strings, strict keys), checks the JSON Schema of each
// config can be produced, and that a receiver needs an MQTT session.
func TestConfigsDecodeThroughTheRegistry(t *testing.T) {
	session, recv, send := SessionFactory(), ReceiverFactory(), SenderFactory()
	got, err := session.Decode(map[string]any{
		"urls": []any{"mqtts://broker.example.com:8883"}, "client_id": "gobridge-plant-1",
		"session_expiry": "1h", "username": "bridge", "password": "pw",
		"tls":       map[string]any{"min_version": "1.3", "server_name": "broker"},
		"reconnect": map[string]any{"initial": "500ms", "max": "10s"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultSessionConfig()
	want.URLs, want.ClientID, want.SessionExpiry = []string{"mqtts://broker.example.com:8883"}, "gobridge-plant-1", time.Hour
	want.Username, want.Password = "bridge", "pw"
	want.TLS = TLSConfig{MinVersion: "1.3", ServerName: "broker"}
	want.Reconnect.Initial, want.Reconnect.Max = 500*time.Millisecond, 10*time.Second
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("session (-want +got):\n%s", diff)
	}
	rc, err := recv.Decode(map[string]any{"subscriptions": []any{
		map[string]any{"topic": "$share/bridges/plant/+/telemetry", "qos": 0, "retain_handling": 1},
		map[string]any{"topic": "plant/alarms"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := rc.(ReceiverConfig)
	if r.Subscriptions[0].EffectiveQoS() != 0 || r.Subscriptions[1].EffectiveQoS() != 1 || r.QoS0Buffer != DefaultQoS0Buffer {
		t.Errorf("receiver %+v", r)
	}
	sc, err := send.Decode(map[string]any{"default_topic": "plant/commands", "qos": 2, "retain": true})
	if err != nil {
		t.Fatal(err)
	}
	if s := sc.(SenderConfig); s.DefaultTopic != "plant/commands" || s.EffectiveQoS() != 2 || !s.Retain {
		t.Errorf("sender %+v", s)
	}
	if _, err := send.Decode(map[string]any{"default_topc": "x"}); err == nil {
		t.Error("an unknown key was accepted")
	}
	if _, err := recv.Decode(map[string]any{"subscriptions": []any{map[string]any{"topic": "a/#/b"}}}); err == nil {
		t.Error("an invalid filter was accepted")
	}
	for _, f := range []registry.Factory{session, recv, send} {
		if !json.Valid(f.Schema()) {
			t.Errorf("%s schema is not JSON", f.Kind())
		}
	}
	if _, err := recv.Build(context.Background(), r, registry.Settings{ID: "in"}); fault.CodeOf(err) != fault.CodeInvalidConfig {
		t.Errorf("a receiver without a session: %v, want INVALID_CONFIG", err)
	}
}
