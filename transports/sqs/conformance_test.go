package sqs

import (
	"bytes"

	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// senderFixture is three emulator queues: two addressed by URL and the
// sender's default, addressed by name.
type senderFixture struct {
	sender *Sender
	target conformance.Target
	def    string
}

func newSenderFixture(t *testing.T) senderFixture {
	cc := emulatorClient(t)
	api := testAPI(t, cc)
	// The target reads these queues and deletes what it reads. A short
	// visibility timeout makes a message whose receive answer was lost
	// (seen with the emulator under concurrent sends) visible again well
	// within the suite's wait, instead of after the default 30s.
	short := map[string]string{"VisibilityTimeout": "2"}
	a, b, d := newQueue(t, api, short), newQueue(t, api, short), newQueue(t, api, short)
	name := d[bytes.LastIndexByte([]byte(d), '/')+1:]
	s, err := NewSender(api, SenderConfig{Client: cc, Queue: name, Batch: aws.Bool(false)})
	if err != nil {
		t.Fatalf("NewSender: %v", err)
	}
	dr := newDrain(api)
	return senderFixture{sender: s, def: d, target: conformance.Target{
		Addresses: []string{a, b},
		Receive:   dr.receive,
		Close:     s.Close,
		Timing:    conformance.Timing{Quiet: 1500 * time.Millisecond, Timeout: 20 * time.Second},
	}}
}

func TestSenderConformance(t *testing.T) {
	conformance.RunSender(t, func(t *testing.T) conformance.SenderHarness {
		f := newSenderFixture(t)
		return conformance.SenderHarness{Sender: f.sender, Target: f.target, EmptyAddressOK: true, DefaultAddress: f.def}
	})
}

func TestBatchSenderConformance(t *testing.T) {
	conformance.RunBatchSender(t, func(t *testing.T) conformance.BatchSenderHarness {
		f := newSenderFixture(t)
		return conformance.BatchSenderHarness{Sender: f.sender, Target: f.target,
			// One byte over SQS's message size limit.
			Spoil: func(m ports.OutboundMessage) ports.OutboundMessage {
				env := m.Envelope.Clone()
				env.SetPayload(bytes.Repeat([]byte("x"), maxMessageBytes+1))
				return ports.OutboundMessage{Envelope: env, Address: m.Address}
			}}
	})
}

var _ = messaging.NewEnvelope
