package servicetest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/httpapi"
	. "github.com/gobridge-oss/gobridge/service"
)

// rolloutDoc is one member of a clustered bridge with the given
// bridge.cluster block: HTTP ingress on a port of its own choosing (so
// every member's file can be the same) to a shared outbox on a shared
// SQLite file, drained to a broker that is not there.
func rolloutDoc(t *testing.T, instance, db, cluster string, batch int) *config.File {
	t.Helper()
	f, err := config.Parse([]byte(fmt.Sprintf(`
bridge: {id: unit, deployment: clustered, instance_id: %s, shutdown_timeout: 2s%s}
sessions:
  - {id: rabbit, type: amqp091, settings: {url: "amqp://guest:guest@127.0.0.1:1/"}}
receivers:
  - {id: in, type: http, settings: {listen: "127.0.0.1:0"}}
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
`, instance, cluster, batch, db, db, db)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// member is a running bridge whose configuration file is held in memory:
// file sets what a re-read returns.
type member struct {
	*Service
	file atomic.Pointer[config.File]
}

// runMember builds and runs f with a re-readable file, until the test
// ends.
func runMember(t *testing.T, f *config.File) *member {
	t.Helper()
	reg, err := bundledRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Validate(f, reg, nil); err != nil {
		t.Fatal(err)
	}
	m := &member{}
	m.file.Store(f)
	m.Service, err = NewFromFile(t.Context(), f, Settings{Registry: reg, Reread: func() (*config.File, error) { return m.file.Load(), nil }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	eventually(t, func() bool { return m.Status(t.Context()).StartedAt != (time.Time{}) },
		func() string { return "the bridge did not start" })
	return m
}

func generation(b *Service) int { return b.Status(context.Background()).ConfigGeneration }

// rolloutDetail is the detail of the rollout component in deep health.
func rolloutDetail(b *Service) httpapi.Component {
	for _, c := range b.DeepHealth(context.Background()).Components {
		if c.Kind == "rollout" {
			return c
		}
	}
	return httpapi.Component{}
}

// TestRolloutRefuse: the default mode of a clustered bridge refuses a
// reload that changes anything, lists the refused change in deep health's
// restart_required, and forgets it once a reload puts the running
// configuration back.
func TestRolloutRefuse(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cluster.db")
	b := runMember(t, rolloutDoc(t, "a", db, "", 0))
	_, err := b.ReloadFile(t.Context(), rolloutDoc(t, "a", db, "", 7))
	if fault.CodeOf(err) != fault.CodeInvalidConfig || !strings.Contains(err.Error(), "bridge.cluster.rollout: refuse") {
		t.Fatalf("a reload with a change: %v, want refused naming the mode", err)
	}
	if got := generation(b.Service); got != 1 {
		t.Errorf("generation %d after a refused reload, want 1", got)
	}
	if diff := cmp.Diff([]string{"routes.r"}, b.DeepHealth(t.Context()).RestartRequired); diff != "" {
		t.Errorf("restart_required after the refusal (-want +got):\n%s", diff)
	}
	if c := rolloutDetail(b.Service); c.ID != config.RolloutRefuse || c.Status != httpapi.HealthUp {
		t.Errorf("rollout in deep health: %+v", c)
	}
	if _, err := b.ReloadFile(t.Context(), rolloutDoc(t, "a", db, "", 0)); err != nil {
		t.Fatalf("a reload without a change: %v", err)
	}
	if got := b.DeepHealth(t.Context()).RestartRequired; len(got) != 0 {
		t.Errorf("restart_required %v once the file matches the running configuration again, want none", got)
	}
}

// TestRolloutIndependent: a member applies a live-safe change on its own;
// a change no member can apply live (here the store identity) is refused
// in this mode too, naming the reason.
func TestRolloutIndependent(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cluster.db")
	const mode = ", cluster: {rollout: independent}"
	b := runMember(t, rolloutDoc(t, "a", db, mode, 0))
	rep, err := b.ReloadFile(t.Context(), rolloutDoc(t, "a", db, mode, 7))
	if err != nil || !cmp.Equal(rep.Changed, []string{"r"}) || generation(b.Service) != 2 {
		t.Fatalf("independent reload: %+v, %v, generation %d; want r changed, generation 2", rep, err, generation(b.Service))
	}
	moved := rolloutDoc(t, "a", db, mode, 7)
	moved.Stores.DLQ.Settings["path"] = filepath.Join(t.TempDir(), "other.db")
	_, err = b.ReloadFile(t.Context(), moved)
	if fault.CodeOf(err) != fault.CodeInvalidConfig || !strings.Contains(err.Error(), "stores.dlq (store identity") {
		t.Fatalf("a store change: %v, want refused naming stores.dlq and the store identity", err)
	}
	if got := b.DeepHealth(t.Context()).RestartRequired; !slices.Contains(got, "stores.dlq") {
		t.Errorf("restart_required %v, want stores.dlq", got)
	}
	if generation(b.Service) != 2 {
		t.Errorf("generation %d after the refusal, want 2", generation(b.Service))
	}
}

// coordinated is the bridge.cluster block of a two-member roster.
const coordinated = ", cluster: {rollout: coordinated, members: [a, b], vote_timeout: 4s}"

// TestRolloutCoordinated: two members on one SQLite file. A reload of the
// same configuration on both commits on both; a reload on one member only
// is refused once the vote timeout passes, with nothing applied; a member
// whose file holds the proposed configuration joins the round by itself.
func TestRolloutCoordinated(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cluster.db")
	a := runMember(t, rolloutDoc(t, "a", db, coordinated, 0))
	b := runMember(t, rolloutDoc(t, "b", db, coordinated, 0))

	// Both reload the same change (b's file is not changed, so its
	// watcher stays out): one round, both apply.
	done := make(chan error, 1)
	go func() {
		_, err := a.ReloadFile(context.Background(), rolloutDoc(t, "a", db, coordinated, 7))
		done <- err
	}()
	eventually(t, func() bool { return strings.Contains(rolloutDetail(b.Service).Detail, "voted: [a]") },
		func() string { return "a's round is not open: " + rolloutDetail(b.Service).Detail })
	if _, err := b.ReloadFile(t.Context(), rolloutDoc(t, "b", db, coordinated, 7)); err != nil {
		t.Fatalf("b's reload: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("a's reload: %v", err)
	}
	if ga, gb := generation(a.Service), generation(b.Service); ga != 2 || gb != 2 {
		t.Errorf("generations a %d, b %d after the commit, want 2 and 2", ga, gb)
	}
	if d := rolloutDetail(a.Service).Detail; !strings.Contains(d, "committed") {
		t.Errorf("a's rollout after the commit: %q", d)
	}

	// a alone: b does not vote within 4s.
	start := time.Now()
	_, err := a.ReloadFile(t.Context(), rolloutDoc(t, "a", db, coordinated, 9))
	if fault.CodeOf(err) != fault.CodeUnavailable || !strings.Contains(err.Error(), "b did not vote within 4s") ||
		!strings.Contains(err.Error(), "nothing was applied") {
		t.Fatalf("a reload on one member: %v, want refused naming b", err)
	}
	if waited := time.Since(start); waited < 4*time.Second {
		t.Errorf("refused after %s, before the vote timeout", waited)
	}
	if ga := generation(a.Service); ga != 2 {
		t.Errorf("a's generation %d after the refused round, want 2", ga)
	}

	// Both files now hold the next configuration: a reload on a opens a
	// round, b's watcher reads its file, finds the same configuration
	// and reloads it.
	b.file.Store(rolloutDoc(t, "b", db, coordinated, 11))
	if _, err := a.ReloadFile(t.Context(), rolloutDoc(t, "a", db, coordinated, 11)); err != nil {
		t.Fatalf("a's reload with b's file changed: %v", err)
	}
	eventually(t, func() bool { return generation(b.Service) == 3 },
		func() string { return fmt.Sprintf("b's generation %d, want 3", generation(b.Service)) })
	if ga := generation(a.Service); ga != 3 {
		t.Errorf("a's generation %d, want 3", ga)
	}
}

// TestRolloutCoordinatedRefusesWhatNoModeApplies: a blocker is refused at
// once, without a vote.
func TestRolloutCoordinatedRefusesWhatNoModeApplies(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cluster.db")
	a := runMember(t, rolloutDoc(t, "a", db, coordinated, 0))
	nf := rolloutDoc(t, "a", db, coordinated, 0)
	nf.Routes[0].Session.SessionID = "other"
	nf.Sessions[0].ID = "other"
	nf.Senders[0].SessionID = "other"
	_, err := a.ReloadFile(t.Context(), nf)
	if fault.CodeOf(err) != fault.CodeInvalidConfig || !strings.Contains(err.Error(), "routes[0].session.session_id (exclusive-session identity") {
		t.Fatalf("a new session identity: %v, want refused naming it", err)
	}
}

// TestRolloutCoordinatedMemberAlreadyOnTheNewConfiguration: a member that
// was restarted with the new file already runs what the others vote for;
// its watcher votes with a reload that changes nothing, and the round
// commits.
func TestRolloutCoordinatedMemberAlreadyOnTheNewConfiguration(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cluster.db")
	a := runMember(t, rolloutDoc(t, "a", db, coordinated, 0))
	b := runMember(t, rolloutDoc(t, "b", db, coordinated, 7))
	rep, err := a.ReloadFile(t.Context(), rolloutDoc(t, "a", db, coordinated, 7))
	if err != nil || !cmp.Equal(rep.Changed, []string{"r"}) {
		t.Fatalf("a's reload to b's configuration: %+v, %v; want r changed", rep, err)
	}
	// b's reload without a change is its generation 2.
	eventually(t, func() bool { return generation(b.Service) == 2 },
		func() string { return fmt.Sprintf("b's generation %d, want 2", generation(b.Service)) })
	if d := rolloutDetail(b.Service).Detail; !strings.Contains(d, "committed") {
		t.Errorf("b's rollout: %q, want the committed round", d)
	}
}
