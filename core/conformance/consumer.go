package conformance

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// consumer drives one Receiver.Run for a subtest. Unless the subtest
// supplies its own emit, every delivery is handed to the test through a
// channel; emit blocks until the test takes it or Run's context ends, the
// back-pressure a busy route exerts.
type consumer struct {
	t      *testing.T
	tm     Timing
	cancel context.CancelFunc
	ds     chan ports.Delivery
	done   chan struct{}
	err    error // Run's result, readable once done is closed
	once   sync.Once
}

// startRun starts Run with emit, or with the forwarding emit when emit is
// nil. The consumer is stopped when the subtest ends.
func startRun(t *testing.T, h ReceiverHarness, emit ports.EmitFunc) *consumer {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	c := &consumer{t: t, tm: h.Timing, cancel: cancel, ds: make(chan ports.Delivery), done: make(chan struct{})}
	if emit == nil {
		emit = c.forward
	}
	go func() {
		defer close(c.done)
		c.err = h.Receiver.Run(ctx, emit)
	}()
	t.Cleanup(c.stop)
	return c
}

func (c *consumer) forward(ctx context.Context, d ports.Delivery) error {
	select {
	case c.ds <- d:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop cancels Run and checks that it returns, with nil or the context's
// error, within Timing.Stop.
func (c *consumer) stop() {
	c.t.Helper()
	c.once.Do(func() {
		c.cancel()
		ctx, cancel := context.WithTimeout(context.Background(), c.tm.Stop)
		defer cancel()
		select {
		case <-c.done:
			if c.err != nil && !errors.Is(c.err, context.Canceled) {
				c.t.Errorf("Run returned %v after cancellation, want nil or context.Canceled", c.err)
			}
		case <-ctx.Done():
			c.t.Errorf("Run did not return within %v of cancellation", c.tm.Stop)
		}
	})
}

// next returns the next delivery or fails the test.
func (c *consumer) next(ctx context.Context) ports.Delivery {
	c.t.Helper()
	select {
	case d := <-c.ds:
		return d
	case <-c.done:
		c.t.Fatalf("Run returned early: %v", c.err)
	case <-ctx.Done():
		c.t.Fatalf("no delivery: %v", context.Cause(ctx))
	}
	return nil
}

// expectNone fails the test if a delivery arrives within the quiet period.
func (c *consumer) expectNone(ctx context.Context) {
	c.t.Helper()
	qctx, cancel := context.WithTimeout(ctx, c.tm.Quiet)
	defer cancel()
	select {
	case d := <-c.ds:
		c.t.Errorf("unexpected delivery: ID %q, payload %q", d.Envelope().ID, d.Envelope().PayloadView())
	case <-c.done:
		c.t.Errorf("Run returned early: %v", c.err)
	case <-qctx.Done():
	}
}

// capabilities returns what the receiver reports, or what ports assumes
// for a receiver that reports nothing.
func capabilities(r ports.Receiver) ports.ReceiverCapabilities {
	if cr, ok := r.(ports.CapabilityReporter); ok {
		return cr.Capabilities()
	}
	return ports.ReceiverCapabilities{Retry: true, RedeliversUnsettled: true}
}

func publishOrFail(ctx context.Context, t *testing.T, h ReceiverHarness, envs ...*messaging.Envelope) {
	t.Helper()
	for _, env := range envs {
		if err := h.Publish(ctx, env); err != nil {
			t.Fatalf("Publish: %v", err)
		}
	}
}

func ackOrFail(ctx context.Context, t *testing.T, d ports.Delivery) {
	t.Helper()
	if err := d.Ack(ctx); err != nil {
		t.Fatalf("Ack: %v", err)
	}
}

// restart calls the harness's Restart hook, if any.
func restart(ctx context.Context, t *testing.T, h ReceiverHarness) {
	t.Helper()
	if h.Restart == nil {
		return
	}
	if err := h.Restart(ctx); err != nil {
		t.Fatalf("Restart: %v", err)
	}
}

// redeliveryCount returns the delivery's count when it reports one.
func redeliveryCount(d ports.Delivery) (int, bool) {
	if rc, ok := d.(ports.RedeliveryCounter); ok {
		return rc.RedeliveryCount()
	}
	return 0, false
}
