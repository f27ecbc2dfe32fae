package mqtt

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

var itTiming = conformance.Timing{Timeout: 15 * time.Second, Quiet: 300 * time.Millisecond}

// TestReceiverConformance runs core's receiver suite against Mosquitto: a
// resumed QoS 1 session (client id, session expiry), fed by this package's
// Sender on a second session. Restart drops the receiver's connection, so
// that the broker redelivers what was not acknowledged.
func TestReceiverConformance(t *testing.T) {
	requireBroker(t)
	conformance.RunReceiver(t, func(t *testing.T) conformance.ReceiverHarness {
		topic := "gobridge-it/recv/" + unique()
		s := newSession(t, SessionConfig{ClientID: "it-recv-" + unique(), SessionExpiry: 30 * time.Second})
		r, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: topic}}}, WithLogger(quiet))
		if err != nil {
			t.Fatal(err)
		}
		ctx := testContext(t)
		if err := s.Start(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(ctx, t, "subscriptions", func() bool { return s.Health(ctx).Subscribed })
		pub := startSession(t, SessionConfig{})
		snd, err := NewSender(pub, SenderConfig{DefaultTopic: topic})
		if err != nil {
			t.Fatal(err)
		}
		return conformance.ReceiverHarness{
			Receiver: r,
			Publish: func(ctx context.Context, env *messaging.Envelope) error {
				return snd.Send(ctx, ports.OutboundMessage{Envelope: env})
			},
			Restart: func(ctx context.Context) error {
				return dropConnection(ctx, s)
			},
			Close:  r.Close,
			Timing: itTiming,
		}
	})
}

// dropConnection cuts s's connection and waits until it is back.
func dropConnection(ctx context.Context, s *Session) error {
	before := s.acks.generation()
	s.manager().TerminateConnectionForTest()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for s.acks.generation() < before+2 || !s.Health(ctx).Subscribed {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// TestSenderConformance runs core's sender suite against Mosquitto, with
// an independent paho client as the target.
func TestSenderConformance(t *testing.T) {
	requireBroker(t)
	conformance.RunSender(t, func(t *testing.T) conformance.SenderHarness {
		snd, target := senderHarness(t)
		return conformance.SenderHarness{Sender: snd, Target: target, EmptyAddressOK: true, DefaultAddress: target.Addresses[2]}
	})
}

// TestBatchSenderConformance runs core's batch suite; a topic with a
// wildcard is the message the broker path refuses on its own.
func TestBatchSenderConformance(t *testing.T) {
	requireBroker(t)
	conformance.RunBatchSender(t, func(t *testing.T) conformance.BatchSenderHarness {
		snd, target := senderHarness(t)
		target.Addresses = target.Addresses[:2]
		return conformance.BatchSenderHarness{Sender: snd, Target: target,
			Spoil: func(m ports.OutboundMessage) ports.OutboundMessage { m.Address = "gobridge-it/#/bad"; return m }}
	})
}

func senderHarness(t *testing.T) (*Sender, conformance.Target) {
	base := "gobridge-it/send/" + unique()
	addrs := []string{base + "/a", base + "/b", base + "/default"}
	obs := newObserver(t, addrs...)
	s := startSession(t, SessionConfig{})
	snd, err := NewSender(s, SenderConfig{DefaultTopic: addrs[2]})
	if err != nil {
		t.Fatal(err)
	}
	return snd, conformance.Target{Addresses: addrs, Receive: obs.receive, Timing: itTiming}
}
