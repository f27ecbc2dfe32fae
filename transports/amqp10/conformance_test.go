package amqp10

import (
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// peers lists the AMQP 1.0 peers every suite runs against.
var peers = []struct {
	name string
	make func(t testing.TB) peer
}{
	{"rabbitmq", rabbitPeer},
	{"proton", protonPeer},
}

type senderFixture struct {
	sender *Sender
	target conformance.Target
	def    string
}

func newSenderFixture(t *testing.T, p peer) senderFixture {
	a, b, d := p.queue(t), p.queue(t), p.queue(t)
	raw := newRawClient(t, p)
	receive := raw.watch(t, a, b, d)
	s, err := NewSender(newTestSession(t, p), SenderConfig{Address: d}, WithName("conformance"))
	if err != nil {
		t.Fatalf("NewSender: %v", err)
	}
	return senderFixture{sender: s, def: d, target: conformance.Target{
		Addresses: []string{a, b},
		Receive:   receive,
		Close:     s.Close,
		Timing:    conformance.Timing{Quiet: 300 * time.Millisecond},
	}}
}

func TestSenderConformance(t *testing.T) {
	for _, pc := range peers {
		t.Run(pc.name, func(t *testing.T) {
			p := pc.make(t)
			conformance.RunSender(t, func(t *testing.T) conformance.SenderHarness {
				f := newSenderFixture(t, p)
				return conformance.SenderHarness{Sender: f.sender, Target: f.target, EmptyAddressOK: true, DefaultAddress: f.def}
			})
		})
	}
}

func TestBatchSenderConformance(t *testing.T) {
	for _, pc := range peers {
		t.Run(pc.name, func(t *testing.T) {
			p := pc.make(t)
			conformance.RunBatchSender(t, func(t *testing.T) conformance.BatchSenderHarness {
				f := newSenderFixture(t, p)
				h := conformance.BatchSenderHarness{Sender: f.sender, Target: f.target}
				if p.name == "rabbitmq" {
					// RabbitMQ refuses a link to an exchange that does not
					// exist (it accepts, and drops, messages for a missing
					// /amq/queue/ address).
					h.Spoil = func(m ports.OutboundMessage) ports.OutboundMessage {
						m.Address = "/exchange/gobridge-it.amqp10.missing/x"
						return m
					}
				}
				return h
			})
		})
	}
}
