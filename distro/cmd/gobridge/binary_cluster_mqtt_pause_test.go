//go:build linux

package main

import (
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestClusterMQTTExclusivePausedOwner is
// TestClusterMQTTExclusiveFailoverOnKill with SIGSTOP instead of SIGKILL:
// the active instance is paused until well past its lease, then resumed,
// again and again (GOBRIDGE_CLUSTER_PAUSES, default 2, and on until every
// MQTT message was published). Each time a standby wins the lease within
// lease_ttl + 1s and its MQTT session takes the broker session over; the
// woken instance steps down on its stale token and does not reconnect
// its MQTT session (which would take the broker session back).
//
// The exclusive route's fence and the drainer's lease check stop a woken
// instance's sends; what still reaches the broker is a send already under
// way when it froze, bounded here by what it held (receive_maximum or one
// batch, 100), and none of it is settled by the woken instance: every
// message it delivers after waking is delivered again by the new owner
// (an outbox record whose completion was skipped or fenced off and which
// the new owner reclaimed; an MQTT message whose PUBACK could not travel
// on the broker connection the new owner took over). The store's
// fenced-write counter, the lease-check skips, the route's fenced
// deliveries and the stale-token step-downs of the woken instance are
// logged; the step-downs are checked. The instances share one SQLite
// file.
func TestClusterMQTTExclusivePausedOwner(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for a minute")
	}
	testMQTTPausedOwner(t, sqliteCluster, 2000)
}

// testMQTTPausedOwner is TestClusterMQTTExclusivePausedOwner on the store
// st, with defMessages MQTT messages unless GOBRIDGE_CLUSTER_MESSAGES says
// otherwise.
func testMQTTPausedOwner(t *testing.T, st clusterStore, defMessages int) {
	pauses := envInt("GOBRIDGE_CLUSTER_PAUSES", 2)
	messages := envInt("GOBRIDGE_CLUSTER_MESSAGES", defMessages)
	mc := startMQTTCluster(t, st, "mqps")
	c, tel, topic := mc.c, mc.tel, mc.topic

	l := startLoad(c, 2)
	pub := startMQTTPublisher(t, topic, messages, envInt("GOBRIDGE_CLUSTER_MQTT_RATE", 150), tel)
	var takeovers []time.Duration
	var wakes []wake
	stops := 0 // pauses, those that froze an instance in a SQLite write included
	for k := 0; k < pauses || !pub.ended(); k++ {
		// Pause an instance in the middle of forwarding both routes.
		ready := func(n *clusterNode) bool {
			recent := time.Now().Add(-time.Second)
			return c.sink.sentBy(n.id, recent) > 0 && (pub.ended() || tel.sentBy(n.id, recent) > 0)
		}
		p := c.pauseActive(l, st, ready)
		stops += p.attempts
		took := time.Since(p.stopped)
		takeovers = append(takeovers, took)
		if !pub.ended() {
			eventually(t, p.next.id+" forwarding MQTT", func() bool { return tel.sentBy(p.next.id, p.stopped) > 0 }, nil)
		}
		w := p.resume(t, l)
		w.mqttLate, w.httpLate = tel.sentSeqsBy(p.node.id, w.at), c.sink.sentSeqsBy(p.node.id, w.at)
		wakes = append(wakes, w)
		t.Logf("pause %d: %s paused, %s active after %v; after waking %s: %d MQTT and %d HTTP messages already in hand delivered, %v writes fenced off by the store, %v drainer lease-check skips, %v direct_hold deliveries fenced, %v stale-token step-downs (%d MQTT published, %d forwarded; %d HTTP accepted)",
			k+1, p.node.id, p.next.id, took, p.node.id, len(w.mqttLate), len(w.httpLate), w.store, w.skipped, w.route, w.stale,
			pub.sent.Load(), tel.received(), l.count())
		c.checkRoles(p.next)
	}
	pub.finish()
	if pub.err != nil {
		t.Fatal(pub.err)
	}
	accepted, retried := l.finish(t)
	c.waitDelivered(accepted)
	seqs := make([]int, messages)
	for i := range seqs {
		seqs[i] = i + 1
	}
	(&testCluster{t: t, sink: tel}).waitDelivered(seqs)

	n := len(takeovers)
	var mqttLate, httpLate int
	var sum fences
	for i, w := range wakes {
		mqttLate, httpLate = mqttLate+len(w.mqttLate), httpLate+len(w.httpLate)
		sum = sum.plus(w.fences)
		if w.stale < 1 {
			t.Errorf("pause %d: %v stale-token step-downs on waking, want at least 1", i+1, w.stale)
		}
		// None of what the woken instance sent was settled by it: the new
		// owner delivered each one again.
		for _, s := range []struct {
			what string
			sink *sink
			seqs []int
		}{{"MQTT", tel, w.mqttLate}, {"HTTP", c.sink, w.httpLate}} {
			if once := s.sink.deliveredOnce(s.seqs); len(once) > 0 {
				t.Errorf("pause %d: %d %s messages delivered by the woken instance were not delivered again by the new owner (settled by a stale owner?), e.g. %v",
					i+1, len(once), s.what, once[:min(10, len(once))])
			}
			if len(s.seqs) > 100 {
				t.Errorf("pause %d: the woken instance delivered %d %s messages, more than one receive_maximum/batch (100) in hand", i+1, len(s.seqs), s.what)
			}
		}
	}
	mqttDups, httpDups := tel.duplicates(nil), c.sink.duplicates(retried)
	t.Logf("%s store: MQTT: %d published, all forwarded, %d duplicates; HTTP: %d accepted, all delivered, %d duplicates; %d pauses (%d more froze an instance in a SQLite write); takeover median %v, max %v; after waking, the paused instances delivered %d MQTT and %d HTTP messages already in hand (each delivered again by the new owner), %v writes fenced off by the store, %v drainer lease-check skips, %v direct_hold deliveries fenced",
		st.name, messages, mqttDups, len(accepted), httpDups, n, stops-n, median(takeovers), slices.Max(takeovers), mqttLate, httpLate, sum.store, sum.skipped, sum.route)
	// A pause that froze an instance in a SQLite write is resumed after
	// more than lease_ttl, so the instance may lose its term on waking:
	// it can cost a handover too.
	if limit := stops * 100; mqttDups > limit {
		t.Errorf("%d MQTT duplicates, more than receive_maximum (100) per pause (%d)", mqttDups, limit)
	}
	if limit := stops * 100; httpDups > limit {
		t.Errorf("%d HTTP duplicates, more than one in-flight batch (100) per pause (%d)", httpDups, limit)
	}
}

// pause is an active instance paused and the one that took over.
type pause struct {
	node, next *clusterNode
	stopped    time.Time
	st         clusterStore
	attempts   int    // pauses it took, those without a takeover included
	before     fences // the paused instance's, just before the pause
}

// wake is what the paused instance did after it was resumed.
type wake struct {
	at                 time.Time
	fences                   // increments over the pause
	mqttLate, httpLate []int // sequence numbers it delivered after waking
}

// pauseActive SIGSTOPs the active instance once ready(it) holds, and
// waits until another instance takes over within lease_ttl + 1s. On a
// store whose write lock a paused process can keep (SQLite), a pause
// that froze the instance inside a write transaction cannot be taken
// over: the instance is resumed and paused again, up to five times.
func (c *testCluster) pauseActive(l *load, st clusterStore, ready func(*clusterNode) bool) pause {
	t := c.t
	t.Helper()
	for attempt := 1; ; attempt++ {
		p := pause{st: st, attempts: attempt}
		p.node, _ = c.active(nil)
		eventually(t, "deliveries from the active instance", func() bool { return ready(p.node) }, nil)
		p.before = p.node.fences(t, st)
		l.setDown(p.node, true)
		p.stopped = time.Now()
		if err := p.node.proc.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		if p.next = c.activeWithin(p.node, clusterTTL+time.Second); p.next != nil {
			return p
		}
		if !st.writeLock {
			t.Fatalf("no instance took over within lease_ttl + 1s of pausing %s, and the %s store has no lock a paused process could hold", p.node.id, st.name)
		}
		t.Logf("attempt %d: %s froze holding the SQLite write lock; no takeover while it is paused", attempt, p.node.id)
		if err := p.node.proc.cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		l.setDown(p.node, false)
		if attempt == 5 {
			t.Fatal("every pause froze the active instance inside a write transaction")
		}
	}
}

// resume SIGCONTs the paused instance two seconds after its lease
// expired, waits until it reports standby, and gives it two more seconds
// to send whatever it still would.
func (p pause) resume(t *testing.T, l *load) wake {
	t.Helper()
	time.Sleep(time.Until(p.stopped.Add(clusterTTL + 2*time.Second)))
	w := wake{at: time.Now()}
	if err := p.node.proc.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	eventually(t, p.node.id+" standby after waking", func() bool {
		role, _ := p.node.readiness("subscribed")
		return role == "standby"
	}, nil)
	l.setDown(p.node, false)
	time.Sleep(2 * time.Second) // give a stale drainer or receiver every chance to send
	w.fences = p.node.fences(t, p.st).minus(p.before)
	return w
}

// fences are the counters of what a node's lease stopped.
type fences struct {
	store   float64 // writes the store refused for a stale token (0 without such a counter)
	skipped float64 // drainer claims, sends and settlements skipped by the lease check
	route   float64 // direct_hold deliveries left with their source by the route's fence
	stale   float64 // stale-token step-downs
}

func (a fences) plus(b fences) fences {
	return fences{a.store + b.store, a.skipped + b.skipped, a.route + b.route, a.stale + b.stale}
}

func (a fences) minus(b fences) fences {
	return fences{a.store - b.store, a.skipped - b.skipped, a.route - b.route, a.stale - b.stale}
}

// fences reads the node's fence counters.
func (n *clusterNode) fences(t *testing.T, st clusterStore) fences {
	t.Helper()
	var f fences
	if st.fencedMetric != "" {
		f.store = n.metric(t, st.fencedMetric)
	}
	f.skipped = n.metric(t, "gobridge_outbox_lease_skipped_total")
	f.route = n.metric(t, "gobridge_route_fenced_total")
	f.stale = n.metric(t, "gobridge_lease_step_downs_total", `reason="stale_token"`)
	return f
}
