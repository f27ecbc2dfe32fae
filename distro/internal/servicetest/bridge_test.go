package servicetest

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/httpapi"
	"github.com/gobridge-oss/gobridge/core/itest"
	. "github.com/gobridge-oss/gobridge/service"
)

// file is a bridge with two direct_hold routes from HTTP ingresses to SSE
// senders, with the memory store as DLQ.
func file(t *testing.T, in1, in2, sse1, sse2 int) *config.File {
	t.Helper()
	f, err := config.Parse([]byte(fmt.Sprintf(`
bridge: {id: unit}
receivers:
  - {id: in1, type: http, settings: {listen: "127.0.0.1:%d"}}
  - {id: in2, type: http, settings: {listen: "127.0.0.1:%d"}}
senders:
  - {id: out1, type: sse, settings: {listen: "127.0.0.1:%d"}}
  - {id: out2, type: sse, settings: {listen: "127.0.0.1:%d"}}
bindings:
  - {id: b1, sender_id: out1, address: one}
  - {id: b2, sender_id: out2, address: two}
routes:
  - {id: r1, receiver_id: in1, bindings: [b1]}
  - {id: r2, receiver_id: in2, bindings: [b2]}
stores:
  dlq: {type: memory}
`, in1, in2, sse1, sse2)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func states(b *Service) map[string]string {
	out := map[string]string{}
	for _, r := range b.Routes(context.Background()) {
		out[r.ID] = r.State
	}
	return out
}

// routeGen is the generation that built route id's current runtime, or
// -1 when it has none.
func routeGen(b *Service, id string) int {
	for _, r := range b.Routes(context.Background()) {
		if r.ID == id {
			return r.Generation
		}
	}
	return -1
}

func waitStates(t *testing.T, b *Service, want map[string]string) {
	t.Helper()
	var got map[string]string
	eventually(t, func() bool {
		got = states(b)
		return cmp.Equal(want, got)
	}, func() string { return "route states (-want +got):\n" + cmp.Diff(want, got) })
}

// eventually checks cond every few milliseconds until it holds, and fails
// t with failure() after 10s.
func eventually(t *testing.T, cond func() bool, failure func() string) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatal(failure())
		}
	}
}

// TestReloadSwapsOnlyTheChangedRouteAndRollsBack changes one route's
// sender and checks the other route is untouched; then a reload whose new
// sender cannot bind is rolled back to the running configuration.
func TestReloadSwapsOnlyTheChangedRouteAndRollsBack(t *testing.T) {
	reg, err := bundledRegistry()
	if err != nil {
		t.Fatal(err)
	}
	in1, in2, s1, s2 := itest.FreePort(t), itest.FreePort(t), itest.FreePort(t), itest.FreePort(t)
	f := file(t, in1, in2, s1, s2)
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
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	running := map[string]string{"r1": httpapi.RouteRunning, "r2": httpapi.RouteRunning}
	waitStates(t, b, running)
	oldR1 := routeGen(b, "r1")

	// Change r2's sender: only r2 restarts.
	s2b := itest.FreePort(t)
	rep, err := b.ReloadFile(t.Context(), file(t, in1, in2, s1, s2b))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"r2"}, rep.Changed); diff != "" {
		t.Errorf("changed routes (-want +got):\n%s", diff)
	}
	if routeGen(b, "r1") != oldR1 {
		t.Error("r1 was restarted although nothing it uses changed")
	}
	waitStates(t, b, running)

	// A sender that cannot bind (its port is taken) fails the reload,
	// which puts the previous configuration back.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	taken := busy.Addr().(*net.TCPAddr).Port
	if _, err := b.ReloadFile(t.Context(), file(t, in1, in2, s1, taken)); err == nil {
		t.Fatal("reload onto a taken port succeeded")
	} else if !strings.Contains(err.Error(), "out2") {
		t.Errorf("reload error %v does not name the sender", err)
	}
	waitStates(t, b, running)
	if got := b.Status(t.Context()).ConfigGeneration; got != 2 {
		t.Errorf("generation %d after one applied and one refused reload, want 2", got)
	}
}

// TestBrokerDownAtStartIsNotFatal starts a bridge whose MQTT broker is
// unreachable: it runs, and readiness reports it not connected instead of
// the process failing.
func TestBrokerDownAtStartIsNotFatal(t *testing.T) {
	reg, err := bundledRegistry()
	if err != nil {
		t.Fatal(err)
	}
	dead := itest.FreePort(t) // nothing listens there any more
	f, err := config.Parse([]byte(fmt.Sprintf(`
bridge: {id: unit}
sessions:
  - {id: broker, type: mqtt, settings: {urls: ["mqtt://127.0.0.1:%d"], connect_timeout: 1s}}
receivers:
  - {id: in, type: mqtt, session_id: broker, settings: {subscriptions: [{topic: "a/#", qos: 0}]}}
senders:
  - {id: out, type: sse, settings: {listen: "127.0.0.1:%d"}}
bindings:
  - {id: b, sender_id: out, address: x}
routes:
  - {id: r, receiver_id: in, bindings: [b], policy: {allow_retry_drop: true, on_expired: drop, on_permanent_failure: drop}}
`, dead, itest.FreePort(t))))
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
	eventually(t, func() bool { return !b.Status(t.Context()).StartedAt.IsZero() },
		func() string { return "bridge did not start" })
	if r := b.Readiness(t.Context()); r.Level != httpapi.LevelNone {
		t.Errorf("readiness %+v with the broker down, want level none", r)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// TestMQTTAdmissionAtLoad refuses a direct_hold route on QoS 1 without a
// resuming session, naming the route's delivery_mode.
func TestMQTTAdmissionAtLoad(t *testing.T) {
	reg, err := bundledRegistry()
	if err != nil {
		t.Fatal(err)
	}
	f, err := config.Parse([]byte(`
bridge: {id: unit}
sessions:
  - {id: broker, type: mqtt, settings: {urls: ["mqtt://127.0.0.1:1883"]}}
receivers:
  - {id: in, type: mqtt, session_id: broker, settings: {subscriptions: [{topic: "a/#", qos: 1}]}}
senders:
  - {id: out, type: webhook, settings: {url: "http://127.0.0.1:1/x"}}
bindings:
  - {id: b, sender_id: out}
routes:
  - {id: r, receiver_id: in, bindings: [b], policy: {on_expired: drop, on_permanent_failure: drop}}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Validate(f, reg, nil)
	if err == nil || !strings.Contains(err.Error(), "routes[0].delivery_mode") || !strings.Contains(err.Error(), "resuming") {
		t.Fatalf("Validate = %v; want the direct_hold admission refused at routes[0].delivery_mode", err)
	}
}
