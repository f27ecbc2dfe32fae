package sqs

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// noCount hides a delivery's RedeliveryCount: goaws reports every
// receive as the first, so the suite's "the count grows" check cannot
// hold there. The count's mapping is tested against a stub server.
type noCount struct{ ports.Delivery }

// countless runs a receiver whose deliveries show no redelivery count.
type countless struct{ *Receiver }

func (c countless) Run(ctx context.Context, emit ports.EmitFunc) error {
	return c.Receiver.Run(ctx, func(ctx context.Context, d ports.Delivery) error {
		return emit(ctx, noCount{d})
	})
}

func TestReceiverConformance(t *testing.T) {
	conformance.RunReceiver(t, func(t *testing.T) conformance.ReceiverHarness {
		cc := emulatorClient(t)
		api := testAPI(t, cc)
		// A short visibility timeout brings unsettled messages back
		// within the subtests' time.
		q := newQueue(t, api, map[string]string{"VisibilityTimeout": "2"})
		r, err := NewReceiver(api, ReceiverConfig{Client: cc, Queue: q, WaitTime: time.Second}, WithMaxInFlight(16))
		if err != nil {
			t.Fatalf("NewReceiver: %v", err)
		}
		s, err := NewSender(api, SenderConfig{Client: cc, Queue: q, Batch: boolPtr(false)})
		if err != nil {
			t.Fatalf("NewSender: %v", err)
		}
		return conformance.ReceiverHarness{
			Receiver: countless{r},
			Publish: func(ctx context.Context, env *messaging.Envelope) error {
				return s.Send(ctx, ports.OutboundMessage{Envelope: env})
			},
			RetryDelay: time.Second,
			Timing:     conformance.Timing{Quiet: 1500 * time.Millisecond, Timeout: 20 * time.Second},
		}
	})
}

func boolPtr(b bool) *bool { return &b }
