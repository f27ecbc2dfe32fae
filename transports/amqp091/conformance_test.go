package amqp091

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// senderFixture is an exchange with three bound queues: key-a, key-b and
// the sender's configured default key-d.
type senderFixture struct {
	sender *Sender
	target conformance.Target
}

func newSenderFixture(t *testing.T) senderFixture {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	ex := uniqueName(t, "ex")
	keys := []string{"key-a", "key-b", "key-d"}
	topo := Topology{Exchanges: []ExchangeSpec{{Name: ex, Type: "direct"}}}
	boxes := map[string]<-chan conformance.Received{}
	var queues []string
	for _, k := range keys {
		q := uniqueName(t, k)
		queues = append(queues, q)
		topo.Queues = append(topo.Queues, QueueSpec{Name: q})
		topo.Bindings = append(topo.Bindings, BindingSpec{Exchange: ex, Queue: q, RoutingKey: k})
	}
	a.deleteOnCleanup(queues, []string{ex})
	sess := newTestSession(t, url, topo)
	for i, k := range keys {
		boxes[k] = a.watch(queues[i])
	}
	s, err := NewSender(sess, SenderConfig{Exchange: ex, RoutingKey: "key-d"}, WithName("conformance"))
	if err != nil {
		t.Fatalf("NewSender: %v", err)
	}
	return senderFixture{sender: s, target: conformance.Target{
		Addresses: []string{"key-a", "key-b"},
		Receive:   receiveFrom(boxes),
		Close:     s.Close,
		Timing:    conformance.Timing{Quiet: 300 * time.Millisecond},
	}}
}

func TestSenderConformance(t *testing.T) {
	conformance.RunSender(t, func(t *testing.T) conformance.SenderHarness {
		f := newSenderFixture(t)
		return conformance.SenderHarness{Sender: f.sender, Target: f.target, EmptyAddressOK: true, DefaultAddress: "key-d"}
	})
}

func TestBatchSenderConformance(t *testing.T) {
	conformance.RunBatchSender(t, func(t *testing.T) conformance.BatchSenderHarness {
		f := newSenderFixture(t)
		return conformance.BatchSenderHarness{Sender: f.sender, Target: f.target,
			// No queue is bound to this key: the broker returns the message.
			Spoil: func(m ports.OutboundMessage) ports.OutboundMessage { m.Address = "unbound-key"; return m }}
	})
}

// receiverFixture builds a receiver on a fresh queue of the given type.
func receiverFixture(t *testing.T, queueType string, retry RetryConfig) conformance.ReceiverHarness {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	q := uniqueName(t, "q")
	cfg := ReceiverConfig{Queue: q, Retry: retry}.WithDefaults()
	var waits []string
	for _, b := range retryBuckets(cfg.Retry) {
		waits = append(waits, cfg.Retry.QueuePrefix+b.label)
	}
	a.deleteOnCleanup(append([]string{q}, waits...), []string{cfg.Retry.Exchange})
	sess := newTestSession(t, url, Topology{Queues: []QueueSpec{{Name: q, Type: queueType}}})
	r, err := NewReceiver(sess, cfg, WithName("conformance"), WithMaxInFlight(16))
	if err != nil {
		t.Fatalf("NewReceiver: %v", err)
	}
	return conformance.ReceiverHarness{
		Receiver: r,
		Publish: func(ctx context.Context, env *messaging.Envelope) error {
			return a.publish(ctx, "", q, env)
		},
		Restart: func(ctx context.Context) error {
			sess.dropConnection()
			return sess.waitUp(ctx)
		},
		RetryDelay: 50 * time.Millisecond,
		Close:      r.Close,
		Timing:     conformance.Timing{Quiet: 300 * time.Millisecond},
	}
}

func TestReceiverConformance(t *testing.T) {
	cases := []struct {
		name      string
		queueType string
		retry     RetryConfig
	}{
		{"classic-delayed", "classic", RetryConfig{Delays: []time.Duration{50 * time.Millisecond, time.Second}}},
		{"quorum-delayed", "quorum", RetryConfig{Delays: []time.Duration{50 * time.Millisecond}, QuorumWaitQueues: true}},
		{"quorum-requeue", "quorum", RetryConfig{Mode: RetryRequeue}},
		{"classic-off", "classic", RetryConfig{Mode: RetryOff}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conformance.RunReceiver(t, func(t *testing.T) conformance.ReceiverHarness {
				return receiverFixture(t, c.queueType, c.retry)
			})
		})
	}
}
