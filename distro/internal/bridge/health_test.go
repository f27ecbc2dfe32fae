package bridge

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/distro/bundle"
)

// healthFile is an exclusive AMQP route with the given session block
// extras and receiver session.
func healthFile(t *testing.T, session, receiverSession string) *config.File {
	t.Helper()
	f, err := config.Parse([]byte(fmt.Sprintf(`
bridge: {id: unit, deployment: clustered, instance_id: a}
sessions:
  - {id: rabbit, type: amqp091, settings: {url: "amqp://guest:guest@127.0.0.1:5672/"}}
receivers:
  - {id: in, type: amqp091, %s settings: {queue: q, exclusive: true}}
senders:
  - {id: out, type: amqp091, session_id: rabbit}
bindings:
  - {id: b, sender_id: out, address: q2}
routes:
  - id: r
    receiver_id: in
    bindings: [b]
    session: {session_id: rabbit, sender_id: out, lease_ttl: 5s, %s}
stores:
  lease: {type: sqlite, settings: {path: x.db}}
  dlq: {type: sqlite, settings: {path: x.db}}
`, receiverSession, session)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestBrokerHealthStepDownValidates(t *testing.T) {
	reg, err := bundle.Registry()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, session, receiverSession string
		want                           []string // problem paths
	}{
		{"exclusive source", "broker_health_step_down: 10s", "session_id: rabbit,", nil},
		{"off", "broker_health_step_down: off, connect_after_lease: false", "session_id: rabbit,", nil},
		{"source that does not wait for the lease", "broker_health_step_down: 10s, connect_after_lease: false", "session_id: rabbit,",
			[]string{"routes[0].session.broker_health_step_down"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := healthFile(t, tc.session, tc.receiverSession)
			var got []string
			for _, p := range brokerHealthCheck(f) {
				got = append(got, p.Path)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("problems (-want +got):\n%s", diff)
			}
			if _, err := Validate(f, reg, nil); (err != nil) != (tc.want != nil) {
				t.Fatalf("Validate = %v, want a refusal: %v", err, tc.want != nil)
			}
		})
	}
}

// fakeSource is a receiver that reports its source health, or not.
type fakeSource struct {
	ports.Receiver
	h ports.SourceHealth
}

func (f fakeSource) SourceHealth() ports.SourceHealth { return f.h }

// plainReceiver reports nothing.
type plainReceiver struct{ ports.Receiver }

// fakeSession reports h.
type fakeSession struct {
	ports.Session
	h ports.SessionHealth
}

func (s fakeSession) Health(context.Context) ports.SessionHealth { return s.h }

func TestSourceProbe(t *testing.T) {
	up := ports.SessionHealth{Connected: true, Subscribed: true, Detail: "up"}
	connected := ports.SessionHealth{Connected: true, Detail: "subscribing"}
	down := ports.SessionHealth{Detail: "down"}
	for _, tc := range []struct {
		name                 string
		recv                 ports.Receiver
		sess                 ports.Session
		converged, reachable bool
	}{
		{"consuming receiver", fakeSource{h: ports.SourceHealth{Converged: true}}, fakeSession{h: up}, true, true},
		{"receiver lost its consumer, session up", fakeSource{h: ports.SourceHealth{Detail: "not consuming"}}, fakeSession{h: up}, false, true},
		{"session down", fakeSource{h: ports.SourceHealth{}}, fakeSession{h: down}, false, false},
		{"silent receiver, subscribed session", plainReceiver{}, fakeSession{h: up}, true, true},
		{"silent receiver, session not re-subscribed", plainReceiver{}, fakeSession{h: connected}, false, true},
		{"silent receiver, session down", plainReceiver{}, fakeSession{h: down}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &sourceProbe{sess: tc.sess, recv: tc.recv}
			if got, _ := p.Converged(); got != tc.converged {
				t.Errorf("Converged = %v, want %v", got, tc.converged)
			}
			if got := p.Reachable(); got != tc.reachable {
				t.Errorf("Reachable = %v, want %v", got, tc.reachable)
			}
		})
	}
}
