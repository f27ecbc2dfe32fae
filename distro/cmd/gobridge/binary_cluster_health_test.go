//go:build linux

package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// healthStepDown is the broker_health_step_down of the test.
const healthStepDown = 2 * time.Second

// healthConfig is one instance of a cluster whose exclusive AMQP source
// reaches RabbitMQ through the instance's own proxy (sourcePort), while
// its target has a direct connection: cutting an instance's proxy breaks
// that instance's broker path only.
func healthConfig(id string, p testPorts, sourcePort int, in, out string) string {
	return fmt.Sprintf(`
bridge: {id: cl, deployment: clustered, instance_id: %s, shutdown_timeout: 2s}
sessions:
  - id: source
    type: amqp091
    settings:
      url: amqp://guest:guest@127.0.0.1:%d/
      connection_name: gobridge-health-source-%s
      heartbeat: 2s
      reconnect: {initial: 100ms, max: 500ms}
      topology:
        queues: [{name: %s}]
  - id: target
    type: amqp091
    settings:
      url: amqp://guest:guest@127.0.0.1:5672/
      connection_name: gobridge-health-target-%s
      topology:
        queues: [{name: %s}]
receivers:
  - id: orders-in
    type: amqp091
    session_id: source
    settings: {queue: %s, exclusive: true, prefetch: 50, retry: {mode: requeue}}
senders:
  - id: rabbit-out
    type: amqp091
    session_id: target
    settings: {app_id: %s}
bindings:
  - {id: to-rabbit, sender_id: rabbit-out, address: %s}
routes:
  - id: orders
    receiver_id: orders-in
    bindings: [to-rabbit]
    session:
      session_id: target
      sender_id: rabbit-out
      lease_ttl: %s
      step_down_grace: 1s
      broker_health_step_down: %s
stores:
  dlq: {type: sqlite, settings: {path: cluster.db, shared: true}}
  lease: {type: sqlite, settings: {path: cluster.db, shared: true}}
http:
  admin_addr: "127.0.0.1:%d"
  monitor_addr: "127.0.0.1:%d"
  admin_api_key: %s
`, id, sourcePort, id, in, id, out, in, id, out, clusterTTL, healthStepDown, p.admin, p.monitor, testKey)
}

// TestClusterBrokerHealthStepDown: two instances share an exclusive AMQP
// source, each reaching the broker through a proxy of its own. Cutting
// the active instance's proxy leaves it alive and holding its lease, but
// not consuming: after broker_health_step_down it gives the lease up, the
// other instance connects its source within broker_health_step_down +
// lease_ttl + 1s of the cut, and every message published arrives. The
// instance with the broken path does not win the lease back while its
// proxy stays cut, and once the proxy is back it waits as a standby.
func TestClusterBrokerHealthStepDown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for half a minute")
	}
	brokerUp(t, "127.0.0.1:5672")
	suffix := fmt.Sprint(time.Now().UnixNano())
	in, out := "gobridge-health-in-"+suffix, "gobridge-health-out-"+suffix
	c := &testCluster{t: t, dir: t.TempDir(), queue: out}
	proxies := map[*clusterNode]*brokerProxy{}
	for i := range 2 {
		node := &clusterNode{id: fmt.Sprintf("node-%d", i+1), p: newPorts(t)}
		px := newBrokerProxy(t, "127.0.0.1:5672")
		proxies[node] = px
		node.cfg = filepath.Join(c.dir, node.id+".yaml")
		if err := os.WriteFile(node.cfg, []byte(healthConfig(node.id, node.p, px.port(), in, out)), 0o600); err != nil {
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

	broken, _ := c.active(nil)
	pub := startPublisher(t, in)
	eventually(t, "deliveries from the active instance", func() bool { return c.sink.sentBy(broken.id, time.Time{}) > 100 }, nil)
	cut := time.Now()
	proxies[broken].cut()
	next, _ := c.active(broken)
	took := time.Since(cut)
	eventually(t, "deliveries from "+next.id, func() bool { return c.sink.sentBy(next.id, cut) > 0 }, nil)
	delivering := time.Since(cut)
	t.Logf("%s's broker path cut; %s active after %v, delivering after %v", broken.id, next.id, took, delivering)
	if budget := healthStepDown + clusterTTL + time.Second; took > budget {
		t.Errorf("takeover took %v, more than broker_health_step_down + lease_ttl + 1s = %v", took, budget)
	}
	if v := broken.metric(t, "gobridge_lease_step_downs_total", `reason="broker_health"`); v != 1 {
		t.Errorf("%s: broker-health step-downs = %v, want 1", broken.id, v)
	}
	// The broken instance stays out while its path is cut, past its
	// hold-off bound too (the other instance holds the lease by then).
	if v := broken.metric(t, "gobridge_lease_broker_hold_off"); v != 1 {
		t.Errorf("%s: gobridge_lease_broker_hold_off = %v right after the step-down, want 1", broken.id, v)
	}
	steady := time.Now().Add(healthStepDown + clusterTTL + time.Second)
	sample := time.NewTicker(200 * time.Millisecond)
	for time.Now().Before(steady) {
		if role, _ := broken.readiness("subscribed"); role != "standby" {
			t.Fatalf("%s is %q with its broker path cut, want standby", broken.id, role)
		}
		<-sample.C
	}
	sample.Stop()
	proxies[broken].restore()
	eventually(t, broken.id+" back in the acquire race", func() bool {
		return broken.metric(t, "gobridge_lease_broker_hold_off") == 0
	}, nil)
	published := pub.finish()
	c.waitDelivered(published)
	if role, _ := next.readiness("subscribed"); role != "active" {
		t.Errorf("%s is %q at the end, want active", next.id, role)
	}
	if role, _ := broken.readiness("subscribed"); role != "standby" {
		t.Errorf("%s is %q at the end, want standby", broken.id, role)
	}
	dups := c.sink.duplicates(nil)
	t.Logf("%d published, all delivered, %d duplicates", len(published), dups)
	if dups > 50 {
		t.Errorf("%d duplicates, more than the prefetch (50) the cut instance had in hand", dups)
	}
}

// brokerProxy forwards a local port to the broker; cut closes the port
// and every forwarded connection (both sides, so the broker sees the
// client gone at once), restore listens on the same port again.
type brokerProxy struct {
	t      *testing.T
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

func newBrokerProxy(t *testing.T, target string) *brokerProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &brokerProxy{t: t, target: target, addr: ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	p.serve(ln)
	t.Cleanup(func() {
		p.cut()
		p.wg.Wait()
	})
	return p
}

func (p *brokerProxy) port() int {
	_, port, _ := net.SplitHostPort(p.addr)
	n, _ := strconv.Atoi(port)
	return n
}

func (p *brokerProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				_ = c.Close()
				continue
			}
			if !p.track(c, up) {
				continue
			}
			for _, pair := range [][2]net.Conn{{c, up}, {up, c}} {
				p.wg.Go(func() {
					_, _ = io.Copy(pair[0], pair[1])
					_ = pair[0].Close()
					_ = pair[1].Close()
				})
			}
		}
	})
}

// track records a forwarded pair; false (and both closed) once cut.
func (p *brokerProxy) track(c, up net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		_ = c.Close()
		_ = up.Close()
		return false
	}
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	return true
}

func (p *brokerProxy) cut() {
	p.mu.Lock()
	ln, conns := p.ln, p.conns
	p.ln, p.conns = nil, map[net.Conn]struct{}{}
	p.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	for c := range conns {
		_ = c.Close()
	}
}

func (p *brokerProxy) restore() {
	p.t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy: listen on %s again: %v", p.addr, err)
	}
	p.serve(ln)
}
