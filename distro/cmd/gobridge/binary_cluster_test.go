//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// The cluster tests run several gobridge processes on one shared SQLite
// file, each an instance of one clustered bridge: HTTP ingress on every
// instance persists to the shared outbox, and the instance that holds the
// route session's lease drains it to a RabbitMQ queue. The test kills or
// pauses the active instance under load and checks that a standby takes
// over within lease_ttl + 1s, without any process restarting, that
// nothing is lost, and that a paused instance delivers nothing once it
// wakes.
//
// GOBRIDGE_CLUSTER_MESSAGES (default 3000) and GOBRIDGE_CLUSTER_KILLS
// (default 3) scale the kill test; GOBRIDGE_CLUSTER_RATE caps the load's
// posts per second (default: as fast as the instances answer), for a long
// run on a store whose emulator slows down as its backlog grows.

// clusterTTL is the lease_ttl of the tests: the shortest the spec admits.
const clusterTTL = 5 * time.Second

// clusterNode is one instance of the test cluster.
type clusterNode struct {
	id   string
	p    testPorts
	cfg  string
	env  []string // added to the test's environment; nil: the test's own
	proc *proc
}

// sqliteCluster keeps the cluster's outbox, DLQ and leases in one SQLite
// file in the data directory the instances share.
var sqliteCluster = clusterStore{
	name: "sqlite",
	stores: `
  outbox: {type: sqlite, settings: {path: cluster.db, shared: true, stale_claim_age: 3s, synchronous: NORMAL}}
  dlq: {type: sqlite, settings: {path: cluster.db, shared: true, stale_claim_age: 3s, synchronous: NORMAL}}
  lease: {type: sqlite, settings: {path: cluster.db, shared: true, stale_claim_age: 3s, synchronous: NORMAL}}`,
	fencedMetric: "gobridge_sqlite_fenced_writes_total",
	writeLock:    true,
}

// clusterStore is where a test cluster keeps its outbox, DLQ and leases.
type clusterStore struct {
	name string
	// stores is the body of the stores block (outbox, dlq and lease).
	stores string
	// fencedMetric counts the writes the store refused for a stale
	// token; "" when the store has no such counter.
	fencedMetric string
	// writeLock is true when a paused process can hold a lock every other
	// instance waits for (SQLite's write lock).
	writeLock bool
}

func clusterConfig(id string, p testPorts, queue string, st clusterStore) string {
	return fmt.Sprintf(`
bridge: {id: cl, deployment: clustered, instance_id: %s, shutdown_timeout: 5s}
sessions:
  - id: rabbit
    type: amqp091
    settings:
      url: amqp://guest:guest@127.0.0.1:5672/
      connection_name: gobridge-cluster-%s
      topology:
        queues: [{name: %s}]
receivers:
  - id: http-in
    type: http
    settings: {listen: "127.0.0.1:%d", paths: [/publish]}
senders:
  - id: rabbit-out
    type: amqp091
    session_id: rabbit
    settings: {app_id: %s}
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
      drain_batch_size: 50
      drain_max_batch_size: 100
      drain_strategy: {type: fixed_poll, interval: 20ms}
stores:%s
http:
  admin_addr: "127.0.0.1:%d"
  monitor_addr: "127.0.0.1:%d"
  admin_api_key: %s
`, id, id, queue, p.ingress, id, queue, clusterTTL, st.stores, p.admin, p.monitor, testKey)
}

// startNode runs the node's process and waits until it is subscribed: a
// standby never reaches full readiness.
func (n *clusterNode) start(t *testing.T, dir string) {
	t.Helper()
	logs := &lockedBuffer{}
	cmd := exec.Command(binPath, "run", "-c", n.cfg, "-data-dir", dir)
	cmd.Stdout, cmd.Stderr = logs, logs
	if n.env != nil {
		cmd.Env = append(os.Environ(), n.env...)
	}
	// A test that times out panics without running its cleanups: the
	// kernel then kills the instances with the test process.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr := &proc{cmd: cmd, logs: logs, done: make(chan error, 1)}
	go func() { pr.done <- cmd.Wait() }()
	n.proc = pr
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		<-pr.done
		if t.Failed() {
			t.Logf("%s output (tail):\n%s", n.id, tail(logs.String(), 60))
		}
	})
	eventually(t, n.id+" subscribed", func() bool {
		select {
		case err := <-pr.done:
			pr.done <- err
			t.Fatalf("%s exited before it was ready: %v\n%s", n.id, err, logs.String())
		default:
		}
		_, code := n.readiness("subscribed")
		return code == http.StatusOK
	}, logs.String)
}

// readiness asks the node's readiness at level ("" for the bare probe)
// and returns its role and the status code; 0 when it does not answer.
func (n *clusterNode) readiness(level string) (string, int) {
	url := fmt.Sprintf("http://127.0.0.1:%d/api/v1/monitor/ready", n.p.monitor)
	if level != "" {
		url += "?level=" + level
	}
	c := http.Client{Timeout: 300 * time.Millisecond}
	resp, err := c.Get(url)
	if err != nil {
		return "", 0
	}
	defer resp.Body.Close()
	var body struct {
		Role string `json:"role"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return body.Role, resp.StatusCode
}

// metric returns the sum of the samples of name in the node's metrics
// whose labels contain every one of match.
func (n *clusterNode) metric(t *testing.T, name string, match ...string) float64 {
	t.Helper()
	var sum float64
	sc := bufio.NewScanner(strings.NewReader(scrape(t, n.p)))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		ok := true
		for _, m := range match {
			ok = ok && strings.Contains(line, m)
		}
		if !ok {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err == nil {
			sum += v
		}
	}
	return sum
}

// testCluster is a set of nodes sharing one data directory.
type testCluster struct {
	t     *testing.T
	dir   string
	queue string
	nodes []*clusterNode
	sink  *sink
}

func newTestCluster(t *testing.T, n int, st clusterStore) *testCluster {
	t.Helper()
	brokerUp(t, "127.0.0.1:5672")
	c := &testCluster{t: t, dir: t.TempDir(), queue: fmt.Sprintf("gobridge-cluster-%d", time.Now().UnixNano())}
	for i := range n {
		node := &clusterNode{id: fmt.Sprintf("node-%d", i+1), p: newPorts(t)}
		node.cfg = filepath.Join(c.dir, node.id+".yaml")
		if err := os.WriteFile(node.cfg, []byte(clusterConfig(node.id, node.p, c.queue, st)), 0o600); err != nil {
			t.Fatal(err)
		}
		c.nodes = append(c.nodes, node)
	}
	for _, node := range c.nodes {
		node.start(t, c.dir)
	}
	c.sink = newSink(t, c.queue)
	return c
}

// active waits until exactly one node other than except reports the
// active role, and returns it with the time that took.
func (c *testCluster) active(except *clusterNode) (*clusterNode, time.Duration) {
	c.t.Helper()
	start := time.Now()
	var found *clusterNode
	eventually(c.t, "one active node", func() bool {
		found = nil
		n := 0
		for _, node := range c.nodes {
			if node == except {
				continue
			}
			if role, _ := node.readiness("subscribed"); role == "active" {
				found = node
				n++
			}
		}
		return n == 1
	}, nil)
	return found, time.Since(start)
}

// sink consumes the queue and counts what arrives, by sequence number and
// by the instance that sent it (the AMQP app-id).
type sink struct {
	mu     sync.Mutex
	count  map[int]int
	byNode map[string][]arrival
	total  int
}

// arrival is one message the sink got from an instance.
type arrival struct {
	at  time.Time
	seq int
}

func newSink(t *testing.T, queue string) *sink {
	t.Helper()
	conn, err := amqp.Dial("amqp://guest:guest@127.0.0.1:5672/")
	if err != nil {
		t.Fatal(err)
	}
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := ch.Consume(queue, "", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{count: map[int]int{}, byNode: map[string][]arrival{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for d := range msgs {
			var body struct {
				Seq int `json:"seq"`
			}
			_ = json.Unmarshal(d.Body, &body)
			s.mu.Lock()
			s.count[body.Seq]++
			s.byNode[d.AppId] = append(s.byNode[d.AppId], arrival{at: time.Now(), seq: body.Seq})
			s.total++
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cleanup, err := conn.Channel()
		if err == nil {
			_, _ = cleanup.QueueDelete(queue, false, false, false)
		}
		_ = conn.Close()
		<-done
	})
	return s
}

// missing returns the sequence numbers of seqs not received.
func (s *sink) missing(seqs []int) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for _, q := range seqs {
		if s.count[q] == 0 {
			out = append(out, q)
		}
	}
	return out
}

// duplicates counts the extra copies, leaving out the sequence numbers in
// skip (posted twice by the load itself).
func (s *sink) duplicates(skip map[int]bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for q, c := range s.count {
		if c > 1 && !skip[q] {
			n += c - 1
		}
	}
	return n
}

// sentBy counts what node sent after from.
func (s *sink) sentBy(node string, from time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, a := range s.byNode[node] {
		if a.at.After(from) {
			n++
		}
	}
	return n
}

// sentSeqsBy returns the sequence numbers node sent after from.
func (s *sink) sentSeqsBy(node string, from time.Time) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for _, a := range s.byNode[node] {
		if a.at.After(from) {
			out = append(out, a.seq)
		}
	}
	return out
}

// deliveredOnce returns those of seqs the sink got exactly once.
func (s *sink) deliveredOnce(seqs []int) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for _, q := range seqs {
		if s.count[q] == 1 {
			out = append(out, q)
		}
	}
	return out
}

// load posts numbered messages to the live nodes until stopped; a message
// whose post failed is posted again to another node (and recorded as
// possibly duplicated by the load itself).
type load struct {
	mu       sync.Mutex
	accepted []int
	retried  map[int]bool
	refusals map[string]int // failed posts, by status or error
	down     map[*clusterNode]bool
	pace     <-chan time.Time // one tick per new message; nil: unpaced
	next     atomic.Int64
	stop     chan struct{}
	wg       sync.WaitGroup
}

func startLoad(c *testCluster, workers int) *load {
	l := &load{retried: map[int]bool{}, refusals: map[string]int{}, down: map[*clusterNode]bool{}, stop: make(chan struct{})}
	if rate := envInt("GOBRIDGE_CLUSTER_RATE", 0); rate > 0 {
		tick := time.NewTicker(time.Second / time.Duration(rate))
		c.t.Cleanup(tick.Stop)
		l.pace = tick.C
	}
	client := &http.Client{Timeout: 2 * time.Second}
	for w := range workers {
		l.wg.Go(func() {
			for k := w; ; k++ {
				select {
				case <-l.stop:
					return
				default:
				}
				if l.pace != nil {
					select {
					case <-l.stop:
						return
					case <-l.pace:
					}
				}
				seq := int(l.next.Add(1))
				posts := 0
				for try := 0; ; try++ {
					node := c.nodes[(k+try)%len(c.nodes)]
					if l.isDown(node) {
						continue
					}
					if posts++; posts > 1 {
						l.mu.Lock()
						l.retried[seq] = true
						l.mu.Unlock()
					}
					url := fmt.Sprintf("http://127.0.0.1:%d/publish", node.p.ingress)
					resp, err := client.Post(url, "application/json", strings.NewReader(fmt.Sprintf(`{"subject":"orders","payload":{"seq":%d}}`, seq)))
					why := ""
					if err == nil {
						_ = resp.Body.Close()
						if resp.StatusCode/100 == 2 {
							l.mu.Lock()
							l.accepted = append(l.accepted, seq)
							l.mu.Unlock()
							break
						}
						why = resp.Status
					} else {
						why = "error"
						if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Timeout") {
							why = "timeout"
						}
					}
					l.mu.Lock()
					l.refusals[why]++
					l.mu.Unlock()
					select {
					case <-l.stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}
		})
	}
	return l
}

func (l *load) isDown(n *clusterNode) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.down[n]
}

func (l *load) setDown(n *clusterNode, down bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.down[n] = down
}

func (l *load) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.accepted)
}

// finish stops the load and returns what the nodes accepted and which
// sequence numbers were posted more than once.
func (l *load) finish(t *testing.T) ([]int, map[int]bool) {
	close(l.stop)
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Logf("failed posts (posted again to another instance): %v", l.refusals)
	return slices.Clone(l.accepted), l.retried
}

// waitDelivered waits until the sink received every accepted message.
func (c *testCluster) waitDelivered(accepted []int) {
	c.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		miss := c.sink.missing(accepted)
		if len(miss) == 0 {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%d of %d accepted messages never arrived, e.g. %v", len(miss), len(accepted), miss[:min(10, len(miss))])
		}
		<-tick.C
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func tail(s string, lines int) string {
	ls := strings.Split(s, "\n")
	return strings.Join(ls[max(0, len(ls)-lines):], "\n")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestClusterFailoverOnKill: three instances, the active one SIGKILLed
// again and again under load. Each time a standby takes over within
// lease_ttl + 1s, nothing accepted is lost, and the duplicates stay below
// one in-flight batch per kill. The killed instance is started again and
// rejoins as a standby; no other process restarts.
func TestClusterFailoverOnKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for a minute")
	}
	testFailoverOnKill(t, sqliteCluster)
}

// testFailoverOnKill is TestClusterFailoverOnKill on the store st.
func testFailoverOnKill(t *testing.T, st clusterStore) {
	kills := envInt("GOBRIDGE_CLUSTER_KILLS", 3)
	messages := envInt("GOBRIDGE_CLUSTER_MESSAGES", 3000)
	c := newTestCluster(t, 3, st)
	first, _ := c.active(nil)
	c.checkRoles(first)

	l := startLoad(c, 4)
	var failovers []time.Duration
	for k := 0; k < kills || l.count() < messages; k++ {
		if k >= kills {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		time.Sleep(2 * time.Second) // let the active one drain for a while
		victim, _ := c.active(nil)
		l.setDown(victim, true)
		killed := time.Now()
		if err := victim.proc.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		victim.proc.done <- <-victim.proc.done // the cleanup reads it again
		next, _ := c.active(victim)
		took := time.Since(killed)
		failovers = append(failovers, took)
		t.Logf("kill %d: %s killed, %s active after %v (%d accepted so far)", k+1, victim.id, next.id, took, l.count())
		victim.start(t, c.dir)
		c.checkRoles(next)
		l.setDown(victim, false)
	}
	accepted, retried := l.finish(t)
	c.waitDelivered(accepted)
	dups := c.sink.duplicates(retried)
	t.Logf("%s store: %d messages accepted, all delivered; %d duplicates over %d kills (%d posted twice by the load, left out); failover median %v, max %v",
		st.name, len(accepted), dups, kills, len(retried), median(failovers), slices.Max(failovers))
	if max := slices.Max(failovers); max > clusterTTL+time.Second {
		t.Errorf("a failover took %v, more than lease_ttl + 1s = %v", max, clusterTTL+time.Second)
	}
	if limit := kills * 100; dups > limit {
		t.Errorf("%d duplicates, more than one in-flight batch (drain_max_batch_size 100) per kill (%d)", dups, limit)
	}
}

// TestClusterPausedOwnerDeliversNothingOnWake: the active instance is
// SIGSTOPped past its lease. A standby takes over; when the paused one is
// SIGCONTed it finds its lease gone, claims, sends and completes nothing
// more and steps down to standby, and nothing accepted is lost. What the
// transport already had in hand when the process froze (a publish written
// to the connection's buffer, not yet to the socket) may still reach the
// broker once it resumes: that is bounded by one in-flight batch, and the
// records stay claimed until the new owner delivers them again.
//
// On SQLite a pause can land while the instance holds the database's
// write lock (inside a claim or a persist): the kernel keeps the lock of a
// stopped process, so no other instance can write or take the lease until
// it resumes. Nothing unsafe happens (nobody else drains), but there is no
// failover; the test then resumes the instance and pauses it again.
func TestClusterPausedOwnerDeliversNothingOnWake(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for half a minute")
	}
	testPausedOwner(t, sqliteCluster)
}

// testPausedOwner is TestClusterPausedOwnerDeliversNothingOnWake on the
// store st.
func testPausedOwner(t *testing.T, st clusterStore) {
	c := newTestCluster(t, 2, st)
	l := startLoad(c, 2)
	var paused, next *clusterNode
	var stopped time.Time
	for attempt := 1; next == nil; attempt++ {
		paused, _ = c.active(nil)
		eventually(t, "deliveries from the active instance", func() bool { return c.sink.sentBy(paused.id, time.Time{}) > 100 }, nil)
		l.setDown(paused, true)
		stopped = time.Now()
		if err := paused.proc.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		if next = c.activeWithin(paused, clusterTTL+time.Second); next != nil {
			break
		}
		// A process frozen inside a SQLite write transaction keeps the
		// database's write lock: no other instance can write, renew or
		// take the lease until it resumes. Fencing holds (nobody else
		// drains), but there is no failover; resume and pause again.
		if !st.writeLock {
			t.Fatalf("no instance took over within lease_ttl + 1s of pausing %s, and the %s store has no lock a paused process could hold", paused.id, st.name)
		}
		t.Logf("attempt %d: %s froze holding the SQLite write lock; no takeover while it is paused", attempt, paused.id)
		if err := paused.proc.cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		l.setDown(paused, false)
		if attempt == 5 {
			t.Fatal("every pause froze the active instance inside a write transaction")
		}
	}
	t.Logf("%s paused, %s active after %v", paused.id, next.id, time.Since(stopped))
	time.Sleep(time.Until(stopped.Add(clusterTTL + 2*time.Second)))
	woke := time.Now()
	if err := paused.proc.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	eventually(t, paused.id+" standby after waking", func() bool {
		role, _ := paused.readiness("subscribed")
		return role == "standby"
	}, nil)
	l.setDown(paused, false)
	time.Sleep(2 * time.Second) // give a stale drainer every chance to send
	accepted, retried := l.finish(t)
	c.waitDelivered(accepted)
	late := c.sink.sentBy(paused.id, woke)
	if late > 100 {
		t.Errorf("%s delivered %d messages after it woke without its lease, more than the one batch (100) its transport may have had in hand", paused.id, late)
	}
	fenced := 0.0
	if st.fencedMetric != "" {
		fenced = paused.metric(t, st.fencedMetric)
	}
	skipped := paused.metric(t, "gobridge_outbox_lease_skipped_total")
	stale := paused.metric(t, "gobridge_lease_step_downs_total", `reason="stale_token"`)
	// Every drainer write a store refuses for its stale token is logged
	// once, whatever the store.
	fencedLogged := strings.Count(paused.proc.logs.String(), "outbox write fenced off")
	t.Logf("%s store: %d accepted, all delivered, %d duplicates; after waking %s: %d publishes already in its transport's hands reached the broker, %v writes refused by the store (stale token; %d logged as fenced off), %v claims/sends/settlements skipped by the lease check, %v stale-token step-downs",
		st.name, len(accepted), c.sink.duplicates(retried), paused.id, late, fenced, fencedLogged, skipped, stale)
	if stale != 1 {
		t.Errorf("stale-token step-downs = %v, want 1", stale)
	}
	if role, _ := next.readiness("subscribed"); role != "active" {
		t.Errorf("%s is %q after the paused one woke, want active", next.id, role)
	}
}

// activeWithin returns the node other than except that reports the
// active role within d, or nil.
func (c *testCluster) activeWithin(except *clusterNode, d time.Duration) *clusterNode {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		for _, node := range c.nodes {
			if node == except {
				continue
			}
			if role, _ := node.readiness("subscribed"); role == "active" {
				return node
			}
		}
		<-tick.C
	}
	return nil
}

// checkRoles checks what readiness and metrics say of each role: the
// active node is fully ready, a standby is capped at subscribed (the bare
// probe answers 503), and gobridge_lease_role agrees.
func (c *testCluster) checkRoles(active *clusterNode) {
	c.t.Helper()
	for _, n := range c.nodes {
		want, code := "standby", http.StatusServiceUnavailable
		if n == active {
			want, code = "active", http.StatusOK
		}
		// A node just started publishes its drainer's role a moment
		// after its readiness: give both a few seconds to agree.
		var role string
		var got int
		var v float64
		deadline := time.Now().Add(5 * time.Second)
		tick := time.NewTicker(50 * time.Millisecond)
		for {
			role, got = n.readiness("")
			v = n.metric(c.t, "gobridge_lease_role", `role="`+want+`"`)
			if role == want && got == code && v == 1 || time.Now().After(deadline) {
				break
			}
			<-tick.C
		}
		tick.Stop()
		if role != want || got != code {
			c.t.Errorf("%s: bare readiness %d role %q, want %d %q", n.id, got, role, code, want)
		}
		if v != 1 {
			c.t.Errorf("%s: gobridge_lease_role{role=%q} = %v, want 1", n.id, want, v)
		}
	}
}

func exclusiveConfig(id string, p testPorts, in, out string) string {
	return fmt.Sprintf(`
bridge: {id: cl, deployment: clustered, instance_id: %s, shutdown_timeout: 5s}
sessions:
  - id: rabbit
    type: amqp091
    settings:
      url: amqp://guest:guest@127.0.0.1:5672/
      connection_name: gobridge-cluster-%s
      heartbeat: 2s
      topology:
        queues: [{name: %s}, {name: %s}]
receivers:
  - id: orders-in
    type: amqp091
    session_id: rabbit
    settings: {queue: %s, exclusive: true, prefetch: 50, retry: {mode: requeue}}
senders:
  - id: rabbit-out
    type: amqp091
    session_id: rabbit
    settings: {app_id: %s}
bindings:
  - {id: to-rabbit, sender_id: rabbit-out, address: %s}
routes:
  - id: orders
    receiver_id: orders-in
    bindings: [to-rabbit]
    session:
      session_id: rabbit
      sender_id: rabbit-out
      lease_ttl: %s
      step_down_grace: 1s
stores:
  dlq: {type: sqlite, settings: {path: cluster.db, shared: true}}
  lease: {type: sqlite, settings: {path: cluster.db, shared: true}}
http:
  admin_addr: "127.0.0.1:%d"
  monitor_addr: "127.0.0.1:%d"
  admin_api_key: %s
`, id, id, in, out, in, id, out, clusterTTL, p.admin, p.monitor, testKey)
}

// TestClusterExclusiveSourceFailover: a direct_hold route from an
// exclusive AMQP consumer, whose source connects only on the instance
// that holds the session's lease (connect_after_lease, the default). The
// standbys do not consume; when the active instance is killed, a standby
// connects its source within lease_ttl + 1s, without restarting, and
// every message published arrives.
func TestClusterExclusiveSourceFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for half a minute")
	}
	kills := envInt("GOBRIDGE_CLUSTER_KILLS", 3)
	c, ch, in := newExclusiveCluster(t, 3)
	c.active(nil)
	// Only the active instance consumes: the standbys' sources are not
	// connected.
	consumers := func() int {
		q, err := ch.QueueDeclarePassive(in, true, false, false, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		return q.Consumers
	}
	eventually(t, "one consumer on the source queue", func() bool { return consumers() == 1 }, nil)

	// Publish numbered messages at a steady rate while the active
	// instance is killed again and again.
	pub := startPublisher(t, in)
	var failovers []time.Duration
	for k := range kills {
		time.Sleep(2 * time.Second)
		victim, _ := c.active(nil)
		killed := time.Now()
		if err := victim.proc.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		victim.proc.done <- <-victim.proc.done
		next, _ := c.active(victim)
		took := time.Since(killed)
		failovers = append(failovers, took)
		t.Logf("kill %d: %s killed, %s connected its source after %v", k+1, victim.id, next.id, took)
		victim.start(t, c.dir)
		if role, _ := victim.readiness("subscribed"); role != "standby" {
			t.Errorf("%s restarted as %q, want standby", victim.id, role)
		}
		if n := consumers(); n != 1 {
			t.Errorf("%d consumers on the source queue with one active instance, want 1", n)
		}
	}
	published := pub.finish()
	c.waitDelivered(published)
	dups := c.sink.duplicates(nil)
	t.Logf("%d messages published, all delivered; %d duplicates over %d kills; failover median %v, max %v",
		len(published), dups, kills, median(failovers), slices.Max(failovers))
	if max := slices.Max(failovers); max > clusterTTL+time.Second {
		t.Errorf("a failover took %v, more than lease_ttl + 1s = %v", max, clusterTTL+time.Second)
	}
	if limit := kills * 50; dups > limit {
		t.Errorf("%d duplicates, more than the prefetch (50) per kill (%d)", dups, limit)
	}
}

// newExclusiveCluster starts n instances of the exclusive-source bridge
// and returns them, a channel to the broker and the source queue.
func newExclusiveCluster(t *testing.T, n int) (*testCluster, *amqp.Channel, string) {
	t.Helper()
	brokerUp(t, "127.0.0.1:5672")
	suffix := fmt.Sprint(time.Now().UnixNano())
	in, out := "gobridge-excl-in-"+suffix, "gobridge-excl-out-"+suffix
	c := &testCluster{t: t, dir: t.TempDir(), queue: out}
	for i := range n {
		node := &clusterNode{id: fmt.Sprintf("node-%d", i+1), p: newPorts(t)}
		node.cfg = filepath.Join(c.dir, node.id+".yaml")
		if err := os.WriteFile(node.cfg, []byte(exclusiveConfig(node.id, node.p, in, out)), 0o600); err != nil {
			t.Fatal(err)
		}
		c.nodes = append(c.nodes, node)
	}
	for _, node := range c.nodes {
		node.start(t, c.dir)
	}
	c.sink = newSink(t, out)
	ch := rabbitChannel(t)
	t.Cleanup(func() { _, _ = ch.QueueDelete(in, false, false, false) })
	return c, ch, in
}

// publisher publishes numbered messages to a queue every 2ms, on a
// connection of its own: a channel shared with the test's goroutine
// (queue inspections while it publishes) interleaves frames and breaks
// (UNEXPECTED_FRAME: a method frame between a publish and its content).
type publisher struct {
	stop      chan struct{}
	done      chan struct{}
	published []int
}

func startPublisher(t *testing.T, queue string) *publisher {
	ch := rabbitChannel(t)
	p := &publisher{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for seq := 1; ; seq++ {
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
			err := ch.PublishWithContext(context.Background(), "", queue, false, false, amqp.Publishing{
				DeliveryMode: amqp.Persistent, Body: fmt.Appendf(nil, `{"seq":%d}`, seq),
				Headers: amqp.Table{"gobridge.subject": "orders"}})
			if err != nil {
				t.Errorf("publish: %v", err)
				return
			}
			p.published = append(p.published, seq)
		}
	}()
	return p
}

// finish stops publishing and returns what was published.
func (p *publisher) finish() []int {
	close(p.stop)
	<-p.done
	return p.published
}

// TestClusterExclusiveSourcePausedOwner: the instance that consumes an
// exclusive source is SIGSTOPped past its lease. A standby wins the lease
// and connects its source as soon as the broker has dropped the frozen
// instance's connection (heartbeat 2s), retrying the refused exclusive
// consume meanwhile; the frozen instance, SIGCONTed, steps down and
// delivers nothing, and every message published arrives.
func TestClusterExclusiveSourcePausedOwner(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for half a minute")
	}
	c, _, in := newExclusiveCluster(t, 2)
	paused, _ := c.active(nil)
	pub := startPublisher(t, in)
	eventually(t, "deliveries from the active instance", func() bool { return c.sink.sentBy(paused.id, time.Time{}) > 100 }, nil)
	stopped := time.Now()
	if err := paused.proc.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	next, took := c.active(paused)
	eventually(t, "deliveries from "+next.id, func() bool { return c.sink.sentBy(next.id, stopped) > 0 }, nil)
	t.Logf("%s paused; %s won the lease after %v and delivered again after %v", paused.id, next.id, took, time.Since(stopped))
	time.Sleep(time.Until(stopped.Add(clusterTTL + 2*time.Second)))
	woke := time.Now()
	if err := paused.proc.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	eventually(t, paused.id+" standby after waking", func() bool {
		role, _ := paused.readiness("subscribed")
		return role == "standby"
	}, nil)
	time.Sleep(2 * time.Second) // give the woken instance every chance to send
	published := pub.finish()
	c.waitDelivered(published)
	late := c.sink.sentBy(paused.id, woke)
	t.Logf("%d published, all delivered, %d duplicates; %s delivered %d messages after waking",
		len(published), c.sink.duplicates(nil), paused.id, late)
	if late > 50 {
		t.Errorf("%s delivered %d messages after waking without its lease, more than its prefetch (50)", paused.id, late)
	}
}
