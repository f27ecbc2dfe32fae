package amqp10

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// receiverFixture builds a receiver on a fresh queue of p.
func receiverFixture(t *testing.T, p peer, retry RetryMode) conformance.ReceiverHarness {
	q := p.queue(t)
	raw := newRawClient(t, p)
	r, err := NewReceiver(newTestSession(t, p), ReceiverConfig{Address: q, Retry: retry}, WithName("conformance"), WithMaxInFlight(16))
	if err != nil {
		t.Fatalf("NewReceiver: %v", err)
	}
	return conformance.ReceiverHarness{
		Receiver: r,
		Publish: func(ctx context.Context, env *messaging.Envelope) error {
			return raw.publish(ctx, q, env)
		},
		RetryDelay: 50 * time.Millisecond,
		Close:      r.Close,
		Timing:     conformance.Timing{Quiet: 300 * time.Millisecond},
	}
}

// TestReceiverConformance runs against RabbitMQ only: the Proton example
// broker sends pre-settled and forgets released messages, so it cannot
// redeliver. RabbitMQ 3.x's plugin does not know the modified outcome (it
// detaches the link), so the retry modes checked are released and off.
func TestReceiverConformance(t *testing.T) {
	for _, mode := range []RetryMode{RetryReleased, RetryOff} {
		t.Run("rabbitmq-"+string(mode), func(t *testing.T) {
			p := rabbitPeer(t)
			conformance.RunReceiver(t, func(t *testing.T) conformance.ReceiverHarness {
				return receiverFixture(t, p, mode)
			})
		})
	}
}
