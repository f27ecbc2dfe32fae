package servicetest

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/httpapi"
	"github.com/gobridge-oss/gobridge/core/itest"
	. "github.com/gobridge-oss/gobridge/service"
)

// clusterFile is one instance of a clustered bridge: HTTP ingress to a
// shared outbox on a shared SQLite file, drained to an AMQP sender whose
// broker is not there (the lease does not depend on it).
func clusterFile(t *testing.T, instance, db string, in, broker int, batch int) *config.File {
	t.Helper()
	f, err := config.Parse([]byte(fmt.Sprintf(`
bridge: {id: unit, deployment: clustered, instance_id: %s, shutdown_timeout: 2s}
sessions:
  - {id: rabbit, type: amqp091, settings: {url: "amqp://guest:guest@127.0.0.1:%d/"}}
receivers:
  - {id: in, type: http, settings: {listen: "127.0.0.1:%d"}}
senders:
  - {id: out, type: amqp091, session_id: rabbit}
bindings:
  - {id: b, sender_id: out, address: q}
routes:
  - id: r
    receiver_id: in
    delivery_mode: shared_outbox
    bindings: [b]
    policy: {ack_after: outbox_persist}
    session: {session_id: rabbit, sender_id: out, lease_ttl: 5s, step_down_grace: 1s, connect_after_lease: false, drain_batch_size: %d}
stores:
  outbox: {type: sqlite, settings: {path: %q, shared: true}}
  dlq: {type: sqlite, settings: {path: %q, shared: true}}
  lease: {type: sqlite, settings: {path: %q, shared: true}}
`, instance, broker, in, batch, db, db, db)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// runBridge builds and runs f; stop ends it and waits.
func runBridge(t *testing.T, f *config.File) (b *Service, stop func()) {
	t.Helper()
	reg, err := bundledRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Validate(f, reg, nil); err != nil {
		t.Fatal(err)
	}
	b, err = NewFromFile(t.Context(), f, Settings{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}
	t.Cleanup(stop)
	return b, stop
}

// roles reports the role an instance gives in each place it reports one.
func roles(b *Service) map[string]string {
	ctx := context.Background()
	return map[string]string{
		"readiness":  b.Readiness(ctx).Role,
		"deephealth": b.DeepHealth(ctx).Role,
		"status":     b.Status(ctx).Role,
		"route":      b.Routes(ctx)[0].Role,
	}
}

func allRoles(role string) map[string]string {
	return map[string]string{"readiness": role, "deephealth": role, "status": role, "route": role}
}

// TestClusteredInstancesShareOneLease: of two instances on one lease, one
// is active and the other standby, everywhere a role is reported; when
// the active one stops, it releases the lease and the standby takes over
// without restarting. A clustered instance refuses a live reload that
// would change its configuration and accepts one that changes nothing.
func TestClusteredInstancesShareOneLease(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cluster.db")
	broker := itest.FreePort(t)
	a, stopA := runBridge(t, clusterFile(t, "a", db, itest.FreePort(t), broker, 0))
	eventually(t, func() bool { return cmp.Equal(allRoles(httpapi.RoleActive), roles(a)) },
		func() string { return fmt.Sprintf("a: %v", roles(a)) })
	inB := itest.FreePort(t)
	b, _ := runBridge(t, clusterFile(t, "b", db, inB, broker, 0))
	eventually(t, func() bool { return b.Routes(t.Context())[0].State == httpapi.RouteRunning },
		func() string { return "b's route is not running" })
	if diff := cmp.Diff(allRoles(httpapi.RoleStandby), roles(b)); diff != "" {
		t.Errorf("b (-want +got):\n%s", diff)
	}
	var lease httpapi.Component
	for _, c := range b.DeepHealth(t.Context()).Components {
		if c.Kind == "lease" {
			lease = c
		}
	}
	// A standby is between tries (idle) or in one (acquiring) when asked.
	if lease.Detail == "acquiring" {
		lease.Detail = "idle"
	}
	if diff := cmp.Diff(httpapi.Component{Kind: "lease", ID: "session/rabbit", Status: httpapi.HealthUp, Detail: "idle"}, lease); diff != "" {
		t.Errorf("b's lease in deep health (-want +got):\n%s", diff)
	}

	// Live reloads of a clustered instance: a change is refused, the
	// same configuration passes.
	if _, err := b.ReloadFile(t.Context(), clusterFile(t, "b", db, inB, broker, 7)); fault.CodeOf(err) != fault.CodeInvalidConfig {
		t.Errorf("reload with a change: %v, want INVALID_CONFIG", err)
	}
	if got := b.Status(t.Context()).ConfigGeneration; got != 1 {
		t.Errorf("generation %d after a refused reload, want 1", got)
	}
	if _, err := b.ReloadFile(t.Context(), clusterFile(t, "b", db, inB, broker, 0)); err != nil {
		t.Errorf("reload without a change: %v", err)
	}

	running := routeGen(b, "r")
	stopA()
	eventually(t, func() bool { return cmp.Equal(allRoles(httpapi.RoleActive), roles(b)) },
		func() string { return fmt.Sprintf("b after a stopped: %v", roles(b)) })
	if routeGen(b, "r") != running {
		t.Error("b's route was rebuilt to take over")
	}
}

// exclusiveFile is clusterFile with an exclusive source: the HTTP ingress
// listens only on the instance that holds the session's lease.
func exclusiveFile(t *testing.T, instance, db string, in, broker int) *config.File {
	t.Helper()
	f := clusterFile(t, instance, db, in, broker, 0)
	f.Routes[0].Session.ConnectAfterLease = nil // the default: true
	return f
}

// listening reports whether something accepts connections on port.
func listening(port int) bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// TestExclusiveSourceFollowsTheLease: the source of an exclusive route
// connects only on the lease holder; a step-down disconnects it and the
// next holder connects its own, and an instance that wins the lease back
// connects a fresh source, all without restarting anything.
func TestExclusiveSourceFollowsTheLease(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cluster.db")
	broker := itest.FreePort(t)
	inA, inB := itest.FreePort(t), itest.FreePort(t)
	a, _ := runBridge(t, exclusiveFile(t, "a", db, inA, broker))
	eventually(t, func() bool { return listening(inA) }, func() string { return "a's source is not connected" })
	b, _ := runBridge(t, exclusiveFile(t, "b", db, inB, broker))
	eventually(t, func() bool { return b.Routes(t.Context())[0].State == httpapi.RouteStandby },
		func() string { return fmt.Sprintf("b's route is %s, want standby", b.Routes(t.Context())[0].State) })
	if listening(inB) {
		t.Fatal("the standby's source is connected")
	}
	// The route waiting for its lease does not lower readiness (the
	// session may: its broker is not there).
	if rd := b.Readiness(t.Context()); rd.Role != httpapi.RoleStandby || strings.Contains(rd.Detail, "route") {
		t.Errorf("standby readiness %+v, want role standby and nothing said of the route", rd)
	}

	handover := func(from, to *Service, fromPort, toPort int) {
		t.Helper()
		if err := from.StepDown("session/rabbit"); err != nil {
			t.Fatal(err)
		}
		eventually(t, func() bool { return listening(toPort) && !listening(fromPort) },
			func() string { return fmt.Sprintf("after the step-down: from %v, to %v", roles(from), roles(to)) })
		eventually(t, func() bool {
			return roles(to)["route"] == httpapi.RoleActive && roles(from)["route"] == httpapi.RoleStandby
		},
			func() string { return fmt.Sprintf("roles after the step-down: from %v, to %v", roles(from), roles(to)) })
	}
	handover(a, b, inA, inB) // b connects its first source
	handover(b, a, inB, inA) // a connects a fresh one
	handover(a, b, inA, inB) // and so does b
}
