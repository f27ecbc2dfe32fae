package servicetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/config"
	. "github.com/gobridge-oss/gobridge/service"
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
	reg, err := bundledRegistry()
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
			_, err := Validate(f, reg, nil)
			var ps config.Problems
			if err != nil && !errors.As(err, &ps) {
				t.Fatalf("Validate = %v, want problems", err)
			}
			var got []string
			for _, p := range ps {
				got = append(got, p.Path)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
