package servicetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/httpapi"
	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/ports"
	. "github.com/gobridge-oss/gobridge/service"
	"github.com/gobridge-oss/gobridge/stores/sqlite"
)

// TestManagedSubscriptionsReachTheMQTTSession runs the bridge twice on
// one SQLite file with a durable MQTT session, dropping one of its two
// subscriptions from the configuration in between: the file records the
// baseline after the first run and the reduced set after the second, so
// the store configured under stores.managed_subscriptions is the one the
// session uses.
func TestManagedSubscriptionsReachTheMQTTSession(t *testing.T) {
	if c, err := net.DialTimeout("tcp", "127.0.0.1:1883", time.Second); err != nil {
		itest.Unavailable(t, "Mosquitto at 127.0.0.1:1883 is unreachable: %v", err)
	} else {
		_ = c.Close()
	}
	reg, err := bundledRegistry()
	if err != nil {
		t.Fatal(err)
	}
	var tok [6]byte
	_, _ = rand.Read(tok[:])
	id := hex.EncodeToString(tok[:])
	clientID, base := "gb-ledger-"+id, "gobridge-it/ledger/"+id
	db := filepath.Join(t.TempDir(), "bridge.db")

	run := func(filters ...string) {
		t.Helper()
		subs := ""
		for _, f := range filters {
			subs += fmt.Sprintf("{topic: %q, qos: 0},", f)
		}
		f, err := config.Parse(fmt.Appendf(nil, `
bridge: {id: unit}
stores:
  managed_subscriptions: {type: sqlite, settings: {path: %q}}
sessions:
  - {id: broker, type: mqtt, settings: {urls: ["mqtt://127.0.0.1:1883"], client_id: %q, session_expiry: 30s}}
receivers:
  - {id: in, type: mqtt, session_id: broker, settings: {subscriptions: [%s]}}
senders:
  - {id: out, type: sse, settings: {listen: "127.0.0.1:%d"}}
bindings:
  - {id: b, sender_id: out, address: x}
routes:
  - {id: r, receiver_id: in, bindings: [b], policy: {allow_retry_drop: true, on_expired: drop, on_permanent_failure: drop}}
`, db, clientID, subs, itest.FreePort(t)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Validate(f, reg, nil); err != nil {
			t.Fatal(err)
		}
		b, err := NewFromFile(t.Context(), f, Settings{Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- b.Run(ctx) }()
		// The session reports up (not degraded) once its subscriptions
		// converged, and it records them before it says so.
		sessionUp := func() bool {
			for _, c := range b.DeepHealth(t.Context()).Components {
				if c.Kind == "session" && c.ID == "broker" {
					return c.Status == httpapi.HealthUp
				}
			}
			return false
		}
		eventually(t, sessionUp, func() string { return fmt.Sprintf("session not up: %+v", b.DeepHealth(t.Context())) })
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
	}
	recorded := func() []ports.ManagedSubscription {
		t.Helper()
		st, err := sqlite.Open(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = st.Close(context.Background()) }()
		subs, _, err := st.LoadSubscriptions(t.Context(), "mqtt|127.0.0.1:1883|"+clientID)
		if err != nil {
			t.Fatal(err)
		}
		return subs
	}

	run(base+"/a/#", base+"/b/#")
	want := []ports.ManagedSubscription{{Filter: base + "/a/#"}, {Filter: base + "/b/#"}}
	if diff := cmp.Diff(want, recorded()); diff != "" {
		t.Errorf("after the first run (-want +got):\n%s", diff)
	}
	run(base + "/a/#")
	want = want[:1]
	if diff := cmp.Diff(want, recorded()); diff != "" {
		t.Errorf("after the second run (-want +got):\n%s", diff)
	}
}
