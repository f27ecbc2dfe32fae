package memtransport_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// testCtx returns a context that ends with the test or after ten seconds.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// runner drives Receiver.Run in a goroutine and forwards every delivery
// to a channel the test reads.
type runner struct {
	ds     chan ports.Delivery
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
	err    error
}

func startRun(t *testing.T, r *memtransport.Receiver) *runner {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rn := &runner{ds: make(chan ports.Delivery), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(rn.done)
		rn.err = r.Run(ctx, func(ctx context.Context, d ports.Delivery) error {
			select {
			case rn.ds <- d:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	t.Cleanup(func() { rn.stop(t) })
	return rn
}

// stop cancels Run and waits for it to return nil.
func (rn *runner) stop(t *testing.T) {
	t.Helper()
	rn.once.Do(func() {
		rn.cancel()
		<-rn.done
		if rn.err != nil {
			t.Errorf("Run returned %v, want nil", rn.err)
		}
	})
}

func (rn *runner) next(ctx context.Context, t *testing.T) ports.Delivery {
	t.Helper()
	select {
	case d := <-rn.ds:
		return d
	case <-ctx.Done():
		t.Fatalf("no delivery: %v", ctx.Err())
		return nil
	}
}

func newEnv(subject, payload string) *messaging.Envelope {
	env := messaging.NewEnvelope(subject, []byte(payload))
	env.SetHeader("app-tenant", "acme")
	return env
}

func publish(ctx context.Context, t *testing.T, r *memtransport.Receiver, envs ...*messaging.Envelope) {
	t.Helper()
	for _, env := range envs {
		if err := r.Publish(ctx, env); err != nil {
			t.Fatalf("Publish: %v", err)
		}
	}
}
