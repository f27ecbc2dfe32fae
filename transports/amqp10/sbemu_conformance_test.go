package amqp10

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// sbemuLock is the peek-lock of the conformance queues. The emulator, like
// Service Bus, keeps a delivery locked when the link that took it ends, so
// a delivery left unsettled across a restart comes back (counted as
// failed) only once its lock expires: short enough for the subtests'
// timeout, long enough for every delivery the suite settles.
const sbemuLock = 2 * time.Second

// TestSbemuReceiverConformance runs the core receiver suite against the
// Service Bus emulator, a peer that takes all three retry modes: modified
// (redelivered with delivery-count + 1), released (redelivered, count
// unchanged) and off.
func TestSbemuReceiverConformance(t *testing.T) {
	for _, mode := range []RetryMode{RetryModified, RetryReleased, RetryOff} {
		t.Run(string(mode), func(t *testing.T) {
			p := sbemuPeer(t, sbemuQueues("q", 16, sbemuLock, 0)...)
			conformance.RunReceiver(t, func(t *testing.T) conformance.ReceiverHarness {
				q := p.queue(t)
				raw := newRawClient(t, p)
				r, err := NewReceiver(newTestSession(t, p), ReceiverConfig{Address: q, Retry: mode}, WithName("conformance"), WithMaxInFlight(16))
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
			})
		})
	}
}
