package memtransport_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// quick timings: an in-memory target delivers at once.
var quick = conformance.Timing{Quiet: 30 * time.Millisecond}

// inbox turns a Sender's record into the per-address arrival stream the
// conformance suites read.
type inbox struct {
	s     *memtransport.Sender
	mu    sync.Mutex
	taken map[string]int // messages already returned, per address
}

func newInbox(s *memtransport.Sender) *inbox { return &inbox{s: s, taken: map[string]int{}} }

func (in *inbox) receive(ctx context.Context, address string) (conformance.Received, error) {
	for {
		sent := in.s.Sent()
		in.mu.Lock()
		skip := in.taken[address]
		for _, m := range sent {
			if m.Address != address {
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			in.taken[address]++
			in.mu.Unlock()
			return conformance.Received{
				Address: m.Address,
				Subject: m.Envelope.Subject,
				Payload: m.Envelope.Payload(),
				Headers: m.Envelope.Headers,
			}, nil
		}
		in.mu.Unlock()
		if err := in.s.WaitSent(ctx, len(sent)+1); err != nil {
			return conformance.Received{}, err
		}
	}
}

func target(s *memtransport.Sender) conformance.Target {
	return conformance.Target{
		Addresses: []string{"queue-a", "queue-b"},
		Receive:   newInbox(s).receive,
		Timing:    quick,
	}
}

func TestSenderConformance(t *testing.T) {
	conformance.RunSender(t, func(*testing.T) conformance.SenderHarness {
		s := memtransport.NewSender(memtransport.SenderOptions{DefaultAddress: "fallback"})
		return conformance.SenderHarness{Sender: s, Target: target(s), EmptyAddressOK: true, DefaultAddress: "fallback"}
	})
}

func TestBatchSenderConformance(t *testing.T) {
	const spoiled = "conformance-spoiled"
	conformance.RunBatchSender(t, func(*testing.T) conformance.BatchSenderHarness {
		b := memtransport.NewBatchSender(memtransport.SenderOptions{
			Fail: func(m ports.OutboundMessage) error {
				if _, bad := m.Envelope.Headers[spoiled]; bad {
					return fault.ErrPayloadTooLarge
				}
				return nil
			},
		})
		return conformance.BatchSenderHarness{
			Sender: b,
			Target: target(b.Sender),
			Spoil: func(m ports.OutboundMessage) ports.OutboundMessage {
				m.Envelope = m.Envelope.Clone()
				m.Envelope.SetHeader(spoiled, "yes")
				return m
			},
		}
	})
}

func TestReceiverConformance(t *testing.T) {
	for name, opts := range map[string]memtransport.Options{
		"Default": {CountRedeliveries: true},
		"NoRetry": {NoRetry: true},
		"Drop":    {Unsettled: memtransport.UnsettledDrop, QueueSize: 4},
	} {
		t.Run(name, func(t *testing.T) {
			conformance.RunReceiver(t, func(t *testing.T) conformance.ReceiverHarness {
				r := memtransport.NewReceiver(opts)
				t.Cleanup(func() {
					if n := r.DoubleSettlements(); n != 0 {
						t.Errorf("the suite settled %d deliveries twice", n)
					}
				})
				return conformance.ReceiverHarness{
					Receiver: r,
					Publish:  r.Publish,
					Restart: func(context.Context) error {
						r.RequeueUnsettled()
						return nil
					},
					Close:  r.Close,
					Timing: quick,
				}
			})
		})
	}
}
