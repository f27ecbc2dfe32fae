//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The rollout tests run two or three gobridge processes on one SQLite
// file, each reading a file of its own whose text is the same on every
// member: what differs per member (instance id, listen ports, AMQP
// app-id) comes from ${env:} references, which a coordinated rollout
// hashes by their presence only. A test edits the files, reloads one
// member (SIGHUP or POST /api/v1/admin/reload) and checks through the
// admin and monitor APIs and the metrics what each member runs after it.

// rolloutVoteTimeout is the coordinated rollout's vote_timeout.
const rolloutVoteTimeout = 5 * time.Second

// rolloutConfig is every member's file: the cluster block cluster ("" for
// none: the default refuse mode), the route's drain_batch_size batch and,
// when dlq is set, another DLQ file.
func rolloutConfig(queue, cluster string, batch int, dlq string) string {
	if cluster != "" {
		cluster = ", cluster: " + cluster
	}
	if dlq == "" {
		dlq = "cluster.db"
	}
	return fmt.Sprintf(`
bridge: {id: cl, deployment: clustered, instance_id: "${env:GB_NODE}", shutdown_timeout: 5s%s}
sessions:
  - id: rabbit
    type: amqp091
    settings:
      url: amqp://guest:guest@127.0.0.1:5672/
      connection_name: "gobridge-rollout-${env:GB_NODE}"
      topology:
        queues: [{name: %s}]
receivers:
  - id: http-in
    type: http
    settings: {listen: "127.0.0.1:${env:GB_INGRESS}", paths: [/publish]}
senders:
  - id: rabbit-out
    type: amqp091
    session_id: rabbit
    settings: {app_id: "${env:GB_NODE}"}
bindings:
  - {id: to-rabbit, sender_id: rabbit-out, address: %s}
routes:
  - id: orders
    receiver_id: http-in
    delivery_mode: shared_outbox
    bindings: [to-rabbit]
    policy: {ack_after: outbox_persist}
    session:
      session_id: rabbit
      sender_id: rabbit-out
      lease_ttl: %s
      step_down_grace: 1s
      connect_after_lease: false
      drain_batch_size: %d
      drain_max_batch_size: 100
      drain_strategy: {type: fixed_poll, interval: 20ms}
stores:
  outbox: {type: sqlite, settings: {path: cluster.db, shared: true, stale_claim_age: 3s, synchronous: NORMAL}}
  dlq: {type: sqlite, settings: {path: %s, shared: true, stale_claim_age: 3s, synchronous: NORMAL}}
  lease: {type: sqlite, settings: {path: cluster.db, shared: true, stale_claim_age: 3s, synchronous: NORMAL}}
http:
  admin_addr: "127.0.0.1:${env:GB_ADMIN}"
  monitor_addr: "127.0.0.1:${env:GB_MONITOR}"
  admin_api_key: %s
`, cluster, queue, queue, clusterTTL, batch, dlq, testKey)
}

// newRolloutCluster starts n members with the cluster block cluster and a
// drain_batch_size of 50.
func newRolloutCluster(t *testing.T, n int, cluster string) *testCluster {
	t.Helper()
	brokerUp(t, "127.0.0.1:5672")
	c := &testCluster{t: t, dir: t.TempDir(), queue: fmt.Sprintf("gobridge-rollout-%d", time.Now().UnixNano())}
	for i := range n {
		node := &clusterNode{id: fmt.Sprintf("node-%d", i+1), p: newPorts(t)}
		node.cfg = filepath.Join(c.dir, node.id+".yaml")
		node.env = []string{"GB_NODE=" + node.id, fmt.Sprintf("GB_INGRESS=%d", node.p.ingress),
			fmt.Sprintf("GB_ADMIN=%d", node.p.admin), fmt.Sprintf("GB_MONITOR=%d", node.p.monitor)}
		c.nodes = append(c.nodes, node)
		c.write(node, rolloutConfig(c.queue, cluster, 50, ""))
	}
	for _, node := range c.nodes {
		node.start(t, c.dir)
	}
	c.sink = newSink(t, c.queue)
	return c
}

// write replaces the node's configuration file.
func (c *testCluster) write(n *clusterNode, doc string) {
	c.t.Helper()
	if err := os.WriteFile(n.cfg, []byte(doc), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// reload re-reads the node's file through the admin API and returns the
// status and, for a refusal, the error's message.
func (n *clusterNode) reload(t *testing.T) (int, string) {
	t.Helper()
	var res struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	code := admin(t, n.p, http.MethodPost, "/reload", nil, &res)
	return code, res.Error.Message
}

// sighup asks the node to re-read its file.
func (n *clusterNode) sighup(t *testing.T) {
	t.Helper()
	if err := n.proc.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
}

// running returns the node's configuration generation (admin status)
// and the drain_batch_size of its running configuration (admin config).
func (n *clusterNode) running(t *testing.T) (generation, batch int) {
	t.Helper()
	var st struct {
		Generation int `json:"config_generation"`
	}
	admin(t, n.p, http.MethodGet, "/status", nil, &st)
	var cfg struct {
		Routes []struct {
			Session struct {
				Batch int `json:"drain_batch_size"`
			} `json:"session"`
		} `json:"routes"`
	}
	admin(t, n.p, http.MethodGet, "/config", nil, &cfg)
	if len(cfg.Routes) != 1 {
		t.Fatalf("%s runs %d routes, want 1", n.id, len(cfg.Routes))
	}
	return st.Generation, cfg.Routes[0].Session.Batch
}

// deepHealth returns the node's restart_required and the detail of its
// rollout component, whose id is the rollout mode.
func (n *clusterNode) deepHealth(t *testing.T) (restart []string, mode, detail string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/api/v1/monitor/deephealth", n.p.monitor), nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	var body struct {
		Restart    []string `json:"restart_required"`
		Components []struct {
			Kind, ID, Detail string
		} `json:"components"`
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("%s deephealth: %v", n.id, err)
	}
	for _, c := range body.Components {
		if c.Kind == "rollout" {
			mode, detail = c.ID, c.Detail
		}
	}
	return body.Restart, mode, detail
}

// wantRunning checks the generation and drain_batch_size of each node.
func (c *testCluster) wantRunning(want map[*clusterNode][2]int) {
	c.t.Helper()
	for _, n := range c.nodes {
		w, ok := want[n]
		if !ok {
			continue
		}
		if g, b := n.running(c.t); g != w[0] || b != w[1] {
			c.t.Errorf("%s runs generation %d with drain_batch_size %d, want generation %d with %d", n.id, g, b, w[0], w[1])
		}
	}
}

// stillDelivers posts a few messages through every node and waits until
// they all arrived, and checks the roles.
func (c *testCluster) stillDelivers(from int) {
	c.t.Helper()
	var seqs []int
	for i, n := range c.nodes {
		for k := range 10 {
			seq := from + i*10 + k
			if st := post(c.t, n.p, fmt.Sprintf(`{"subject":"orders","payload":{"seq":%d}}`, seq), nil); st != http.StatusOK {
				c.t.Fatalf("post %d to %s: status %d", seq, n.id, st)
			}
			seqs = append(seqs, seq)
		}
	}
	c.waitDelivered(seqs)
	active, _ := c.active(nil)
	c.checkRoles(active)
}

// TestClusterRolloutRefuse: in the default rollout mode of a clustered
// bridge, a reload that changes the route's drain settings is refused,
// whether asked through the admin API or by SIGHUP; deep health lists the
// route in restart_required until the file matches the running
// configuration again, and the members keep running what they started
// with.
func TestClusterRolloutRefuse(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two processes")
	}
	c := newRolloutCluster(t, 2, "")
	n1, n2 := c.nodes[0], c.nodes[1]
	if _, mode, _ := n1.deepHealth(t); mode != "refuse" {
		t.Errorf("rollout mode in deep health %q, want refuse (the default)", mode)
	}

	c.write(n1, rolloutConfig(c.queue, "", 20, ""))
	code, msg := n1.reload(t)
	if code != http.StatusBadRequest || !strings.Contains(msg, "bridge.cluster.rollout: refuse") {
		t.Errorf("admin reload with a change: %d %q, want 400 naming the refuse mode", code, msg)
	}
	c.write(n2, rolloutConfig(c.queue, "", 20, ""))
	n2.sighup(t)
	eventually(t, n2.id+" listing the refused change", func() bool {
		rr, _, _ := n2.deepHealth(t)
		return slices.Equal(rr, []string{"routes.orders"})
	}, n2.proc.logs.String)
	if rr, _, _ := n1.deepHealth(t); !cmp.Equal(rr, []string{"routes.orders"}) {
		t.Errorf("%s restart_required %v, want [routes.orders]", n1.id, rr)
	}
	c.wantRunning(map[*clusterNode][2]int{n1: {1, 50}, n2: {1, 50}})
	c.stillDelivers(1)

	// The file back as it was: the reload passes and the listing goes.
	c.write(n1, rolloutConfig(c.queue, "", 50, ""))
	if code, msg := n1.reload(t); code != http.StatusOK {
		t.Errorf("admin reload without a change: %d %q, want 200", code, msg)
	}
	if rr, _, _ := n1.deepHealth(t); len(rr) != 0 {
		t.Errorf("%s restart_required %v once its file matches again, want none", n1.id, rr)
	}
}

// TestClusterRolloutIndependent: a member reloaded by SIGHUP applies the
// change on its own while the other keeps its configuration; a change of
// the shared stores is refused in this mode too, named in the answer and
// in restart_required.
func TestClusterRolloutIndependent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two processes")
	}
	const mode = "{rollout: independent}"
	c := newRolloutCluster(t, 2, mode)
	n1, n2 := c.nodes[0], c.nodes[1]

	c.write(n1, rolloutConfig(c.queue, mode, 20, ""))
	n1.sighup(t)
	eventually(t, n1.id+" on generation 2", func() bool { g, _ := n1.running(t); return g == 2 }, n1.proc.logs.String)
	c.wantRunning(map[*clusterNode][2]int{n1: {2, 20}, n2: {1, 50}})
	for _, n := range c.nodes {
		if rr, m, _ := n.deepHealth(t); len(rr) != 0 || m != "independent" {
			t.Errorf("%s: restart_required %v, rollout %q; want none, independent", n.id, rr, m)
		}
	}

	c.write(n2, rolloutConfig(c.queue, mode, 50, "other.db"))
	code, msg := n2.reload(t)
	if code != http.StatusBadRequest || !strings.Contains(msg, "stores.dlq (store identity") {
		t.Errorf("admin reload moving the DLQ: %d %q, want 400 naming stores.dlq and the store identity", code, msg)
	}
	if rr, _, _ := n2.deepHealth(t); !slices.Contains(rr, "stores.dlq") {
		t.Errorf("%s restart_required %v, want stores.dlq", n2.id, rr)
	}
	c.wantRunning(map[*clusterNode][2]int{n1: {2, 20}, n2: {1, 50}})
	c.stillDelivers(1)
}

// TestClusterRolloutCoordinated: three members with a coordinated
// rollout. Every file changed and one member SIGHUPed: the other two see
// the round through the lease store, find their files hash to the same
// configuration, vote, and all three apply it. Then one member's file
// differs: the reload asked of another is refused once vote_timeout
// passed, naming the member that did not vote, and no member applies
// anything.
func TestClusterRolloutCoordinated(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three processes")
	}
	const mode = "{rollout: coordinated, members: [node-1, node-2, node-3], vote_timeout: 5s}"
	c := newRolloutCluster(t, 3, mode)
	n1, n2, n3 := c.nodes[0], c.nodes[1], c.nodes[2]
	rounds := func(n *clusterNode, outcome string) float64 {
		return n.metric(t, "gobridge_cluster_rollout_rounds_total", `outcome="`+outcome+`"`)
	}

	for _, n := range c.nodes {
		c.write(n, rolloutConfig(c.queue, mode, 20, ""))
	}
	n1.sighup(t)
	for _, n := range c.nodes {
		eventually(t, n.id+" committed", func() bool { return rounds(n, "committed") == 1 }, n.proc.logs.String)
		eventually(t, n.id+" on generation 2", func() bool { g, _ := n.running(t); return g == 2 }, n.proc.logs.String)
		if _, m, d := n.deepHealth(t); m != "coordinated" || !strings.Contains(d, "round 1 committed") {
			t.Errorf("%s: rollout %q %q, want coordinated, round 1 committed", n.id, m, d)
		}
	}
	c.wantRunning(map[*clusterNode][2]int{n1: {2, 20}, n2: {2, 20}, n3: {2, 20}})
	c.stillDelivers(1)

	// node-3's file holds another configuration: it stays out of the
	// round, which aborts; nobody applies anything.
	c.write(n1, rolloutConfig(c.queue, mode, 30, ""))
	c.write(n2, rolloutConfig(c.queue, mode, 30, ""))
	c.write(n3, rolloutConfig(c.queue, mode, 40, ""))
	start := time.Now()
	code, msg := n1.reload(t)
	waited := time.Since(start)
	if code != http.StatusServiceUnavailable || !strings.Contains(msg, "node-3") || !strings.Contains(msg, "nothing was applied") {
		t.Errorf("reload with node-3's file different: %d %q, want 503 naming node-3, nothing applied", code, msg)
	}
	if waited < rolloutVoteTimeout {
		t.Errorf("refused after %v, before vote_timeout %v", waited, rolloutVoteTimeout)
	}
	eventually(t, n2.id+" aborted", func() bool { return rounds(n2, "aborted") == 1 }, n2.proc.logs.String)
	for n, want := range map[*clusterNode][3]float64{n1: {1, 1, 0}, n2: {1, 1, 0}, n3: {1, 0, 0}} {
		got := [3]float64{rounds(n, "committed"), rounds(n, "aborted"), rounds(n, "refused")}
		if got != want {
			t.Errorf("%s: rollout rounds committed/aborted/refused %v, want %v", n.id, got, want)
		}
	}
	if _, _, d := n1.deepHealth(t); !strings.Contains(d, "round 2 not committed") {
		t.Errorf("%s: rollout detail %q, want round 2 not committed", n1.id, d)
	}
	c.wantRunning(map[*clusterNode][2]int{n1: {2, 20}, n2: {2, 20}, n3: {2, 20}})
	c.stillDelivers(100)
	t.Logf("coordinated: a full round committed on all three members; a round with one member's file different was refused after %v, nothing applied", waited)
}
