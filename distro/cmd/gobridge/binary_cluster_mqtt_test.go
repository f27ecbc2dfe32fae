//go:build linux

package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/transports/mqtt"
)

// The MQTT cluster test runs three gobridge processes on one store (a
// SQLite file, or a DynamoDB table set) with two routes: an exclusive MQTT source (a plain subscription under
// one fixed client id shared by every instance, QoS 1, a durable broker
// session) forwarded in direct_hold to a RabbitMQ queue, whose session
// connects only on the holder of the route's lease; and HTTP ingress on
// every instance persisted to the shared outbox and drained to another
// queue. Both routes share one lease, so one instance is active for both.
//
// GOBRIDGE_CLUSTER_MESSAGES (default 2000) is the number of MQTT
// messages, published at GOBRIDGE_CLUSTER_MQTT_RATE per second (default
// 150); GOBRIDGE_CLUSTER_KILLS (default 3) the least number of kills (the
// test keeps killing every few seconds until every message was
// published).
//
// The machine's Mosquitto queues at most 1000 messages for an offline
// session and drops the rest, so the publisher keeps its lead over what
// the bridge delivered below mqttMaxLead.
const mqttMaxLead = 500

func mqttClusterConfig(id string, p testPorts, clientID, topic, orders, telemetry string, st clusterStore) string {
	return fmt.Sprintf(`
bridge: {id: cl, deployment: clustered, instance_id: %s, shutdown_timeout: 5s}
sessions:
  - id: rabbit
    type: amqp091
    settings:
      url: amqp://guest:guest@127.0.0.1:5672/
      connection_name: gobridge-cluster-%s
      topology:
        queues: [{name: %s}, {name: %s}]
  - id: mq
    type: mqtt
    settings:
      urls: ["mqtt://127.0.0.1:1883"]
      client_id: %s
      session_expiry: 1h
      reconnect: {initial: 100ms, max: 1s}
receivers:
  - id: http-in
    type: http
    settings: {listen: "127.0.0.1:%d", paths: [/publish]}
  - id: mqtt-in
    type: mqtt
    session_id: mq
    settings:
      subscriptions: [{topic: %q, qos: 1}]
senders:
  - id: rabbit-out
    type: amqp091
    session_id: rabbit
    settings: {app_id: %s}
bindings:
  - {id: to-orders, sender_id: rabbit-out, address: %s}
  - {id: to-telemetry, sender_id: rabbit-out, address: %s}
routes:
  - id: orders
    receiver_id: http-in
    delivery_mode: shared_outbox
    bindings: [to-orders]
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
  - id: telemetry
    receiver_id: mqtt-in
    delivery_mode: direct_hold
    bindings: [to-telemetry]
    session:
      session_id: rabbit
      sender_id: rabbit-out
      lease_ttl: %s
      step_down_grace: 1s
stores:%s
http:
  admin_addr: "127.0.0.1:%d"
  monitor_addr: "127.0.0.1:%d"
  admin_api_key: %s
`, id, id, orders, telemetry, clientID, p.ingress, topic, id, orders, telemetry,
		clusterTTL, clusterTTL, st.stores, p.admin, p.monitor, testKey)
}

// mqttPublisher publishes numbered QoS 1 messages to topic, each once
// acknowledged by the broker, keeping its lead over what the sink
// received below mqttMaxLead.
type mqttPublisher struct {
	sent atomic.Int64
	stop chan struct{}
	done chan struct{}
	err  error
}

func startMQTTPublisher(t *testing.T, topic string, total, rate int, delivered *sink) *mqttPublisher {
	t.Helper()
	s, err := mqtt.NewSession(mqtt.SessionConfig{URLs: []string{"mqtt://127.0.0.1:1883"},
		ClientID: "gobridge-cluster-pub-" + fmt.Sprint(time.Now().UnixNano()), SessionExpiry: time.Hour},
		mqtt.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	snd, err := mqtt.NewSender(s, mqtt.SenderConfig{DefaultTopic: topic})
	if err != nil {
		t.Fatal(err)
	}
	p := &mqttPublisher{stop: make(chan struct{}), done: make(chan struct{})}
	t.Cleanup(func() {
		p.finish()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Close(ctx)
	})
	go func() {
		defer close(p.done)
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for seq := 1; seq <= total; seq++ {
			// One message per tick, and none while the lead is too long.
			for first := true; first || seq-delivered.received() > mqttMaxLead; first = false {
				select {
				case <-p.stop:
					return
				case <-tick.C:
				}
			}
			env := messaging.NewEnvelope("telemetry", fmt.Appendf(nil, `{"seq":%d}`, seq))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := snd.Send(ctx, ports.OutboundMessage{Envelope: env})
			cancel()
			if err != nil {
				p.err = fmt.Errorf("publish %d: %w", seq, err)
				return
			}
			p.sent.Store(int64(seq))
		}
	}()
	return p
}

// finish stops publishing (if it has not ended) and waits for it.
func (p *mqttPublisher) finish() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
}

// ended reports whether every message was published (or publishing
// failed).
func (p *mqttPublisher) ended() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// received is the number of messages the sink got, duplicates included.
func (s *sink) received() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// TestClusterMQTTExclusiveFailoverOnKill: the active instance is
// SIGKILLed every few seconds while numbered MQTT messages are published
// and HTTP posts arrive on every instance. Each time a standby wins the
// lease within lease_ttl + 1s, without any process restarting, and its
// MQTT session resumes the broker session the dead one held; nothing
// published or accepted is lost, and the MQTT duplicates stay within one
// receive_maximum (100) per kill. The instances share one SQLite file.
func TestClusterMQTTExclusiveFailoverOnKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for a minute")
	}
	testMQTTFailoverOnKill(t, sqliteCluster, 2000)
}

// testMQTTFailoverOnKill is TestClusterMQTTExclusiveFailoverOnKill on the
// store st, with defMessages MQTT messages unless
// GOBRIDGE_CLUSTER_MESSAGES says otherwise.
func testMQTTFailoverOnKill(t *testing.T, st clusterStore, defMessages int) {
	kills := envInt("GOBRIDGE_CLUSTER_KILLS", 3)
	messages := envInt("GOBRIDGE_CLUSTER_MESSAGES", defMessages)
	mc := startMQTTCluster(t, st, "mqcl")
	c, tel, topic := mc.c, mc.tel, mc.topic

	l := startLoad(c, 2)
	pub := startMQTTPublisher(t, topic, messages, envInt("GOBRIDGE_CLUSTER_MQTT_RATE", 150), tel)
	var failovers, resumed []time.Duration
	for k := 0; k < kills || !pub.ended(); k++ {
		time.Sleep(2 * time.Second) // let the active one forward for a while
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
		if !pub.ended() {
			eventually(t, next.id+" forwarding MQTT", func() bool { return tel.sentBy(next.id, killed) > 0 }, nil)
			resumed = append(resumed, time.Since(killed))
		}
		t.Logf("kill %d: %s killed, %s active after %v (%d MQTT published, %d forwarded; %d HTTP accepted)",
			k+1, victim.id, next.id, took, pub.sent.Load(), tel.received(), l.count())
		victim.start(t, c.dir)
		c.checkRoles(next)
		l.setDown(victim, false)
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
	telCluster := &testCluster{t: t, sink: tel}
	telCluster.waitDelivered(seqs)
	mqttDups, httpDups := tel.duplicates(nil), c.sink.duplicates(retried)
	n := len(failovers)
	t.Logf("%s store: MQTT: %d published, all forwarded, %d duplicates; HTTP: %d accepted, all delivered, %d duplicates; %d kills; failover (lease won) median %v, max %v; MQTT forwarding again after median %v, max %v",
		st.name, messages, mqttDups, len(accepted), httpDups, n, median(failovers), slices.Max(failovers), medianOr(resumed), maxOr(resumed))
	if max := slices.Max(failovers); max > clusterTTL+time.Second {
		t.Errorf("a failover took %v, more than lease_ttl + 1s = %v", max, clusterTTL+time.Second)
	}
	if limit := n * 100; mqttDups > limit {
		t.Errorf("%d MQTT duplicates, more than receive_maximum (100) per kill (%d)", mqttDups, limit)
	}
	if limit := n * 100; httpDups > limit {
		t.Errorf("%d HTTP duplicates, more than one in-flight batch (100) per kill (%d)", httpDups, limit)
	}
}

func medianOr(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return median(ds)
}

func maxOr(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return slices.Max(ds)
}

// mqttCluster is a started three-process cluster of mqttClusterConfig on
// store st: its HTTP sink, the sink of the MQTT route's target and the
// topic the MQTT publisher writes to.
type mqttCluster struct {
	c     *testCluster
	tel   *sink
	topic string
}

// startMQTTCluster writes each node's configuration, starts the three
// nodes, opens both sinks and checks the first active node's roles; kind
// keeps the queue names of one test apart from another's.
func startMQTTCluster(t *testing.T, st clusterStore, kind string) mqttCluster {
	t.Helper()
	brokerUp(t, "127.0.0.1:5672")
	brokerUp(t, "127.0.0.1:1883")
	suffix := fmt.Sprint(time.Now().UnixNano())
	topic := "gobridge-cluster/" + suffix + "/telemetry"
	orders, telemetry := "gobridge-"+kind+"-orders-"+suffix, "gobridge-"+kind+"-telemetry-"+suffix
	c := &testCluster{t: t, dir: t.TempDir(), queue: orders}
	for i := range 3 {
		node := &clusterNode{id: fmt.Sprintf("node-%d", i+1), p: newPorts(t)}
		node.cfg = filepath.Join(c.dir, node.id+".yaml")
		cfg := mqttClusterConfig(node.id, node.p, "gobridge-cl-"+suffix, topic, orders, telemetry, st)
		if err := os.WriteFile(node.cfg, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		c.nodes = append(c.nodes, node)
	}
	for _, node := range c.nodes {
		node.start(t, c.dir)
	}
	c.sink = newSink(t, orders)
	tel := newSink(t, telemetry)
	first, _ := c.active(nil)
	c.checkRoles(first)
	return mqttCluster{c: c, tel: tel, topic: topic}
}
