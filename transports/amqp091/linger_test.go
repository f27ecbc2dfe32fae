package amqp091

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

func TestLingerResolution(t *testing.T) {
	cases := []struct {
		name             string
		configured, stop time.Duration
		want             time.Duration
	}{
		{"neither: the default", 0, 0, DefaultLinger},
		{"unset: the stop timeout", 0, 5 * time.Second, 5 * time.Second},
		{"unset: a long stop timeout too", 0, 2 * time.Minute, 2 * time.Minute},
		{"longer than the stop timeout: cut to it", 30 * time.Second, 5 * time.Second, 5 * time.Second},
		{"shorter than the stop timeout: kept", time.Second, 5 * time.Second, time.Second},
		{"no stop timeout: as configured", 10 * time.Second, 0, 10 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := lingerFor(c.configured, c.stop); got != c.want {
				t.Errorf("lingerFor(%v, %v) = %v, want %v", c.configured, c.stop, got, c.want)
			}
		})
	}
}

// receiverWithOneMessage is a receiver on a fresh queue holding one
// message.
func receiverWithOneMessage(t *testing.T, cfg ReceiverConfig, opts ...Option) (*Receiver, string) {
	t.Helper()
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	q := uniqueName(t, "linger")
	cfg.Queue = q
	waits, ex := retryObjects(cfg)
	a.deleteOnCleanup(append([]string{q}, waits...), []string{ex})
	sess := newTestSession(t, url, Topology{Queues: []QueueSpec{{Name: q}}})
	recv, err := NewReceiver(sess, cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = recv.Close(context.Background()) })
	if err := a.publish(t.Context(), "", q, messaging.NewEnvelope("linger", []byte("hold me"))); err != nil {
		t.Fatal(err)
	}
	return recv, q
}

// TestLingerFollowsStopTimeout: a receiver without a linger of its own,
// told a stop timeout of 300ms, stops with a delivery still unsettled: the
// channel must close, and the message be back in the queue, about 300ms
// later, not after the 30s default.
func TestLingerFollowsStopTimeout(t *testing.T) {
	recv, q := receiverWithOneMessage(t, ReceiverConfig{}, WithName("linger-in"))
	recv.SetStopTimeout(300 * time.Millisecond)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	got := make(chan ports.Delivery, 1)
	rctx, stop := context.WithCancel(ctx)
	runDone := make(chan error, 1)
	go func() {
		runDone <- recv.Run(rctx, func(_ context.Context, d ports.Delivery) error { got <- d; return nil })
	}()
	select {
	case <-got: // held, never settled
	case <-ctx.Done():
		t.Fatal("no delivery")
	}
	stop()
	<-runDone
	stopped := time.Now()
	waitFor(ctx, t, "the message to be back in the queue", func() bool {
		n, err := depth(brokerURL(), q)
		return err == nil && n == 1
	})
	took := time.Since(stopped)
	t.Logf("the message was back %v after Run stopped", took.Round(time.Millisecond))
	if took < 250*time.Millisecond || took > 3*time.Second {
		t.Errorf("the channel closed %v after Run stopped, want about the 300ms stop timeout", took)
	}
}

// TestStoppedRouteReleasesItsMessagesWhenTheRuntimeGivesUp: a receiver
// lingering up to 20s under a route whose stop timeout is 200ms, with a
// message stuck in a blocked send: once the runtime gives up on the
// delivery the channel closes and the broker has the message back, long
// before the linger ends.
func TestStoppedRouteReleasesItsMessagesWhenTheRuntimeGivesUp(t *testing.T) {
	recv, q := receiverWithOneMessage(t, ReceiverConfig{Linger: 20 * time.Second}, WithName("release-in"))
	target := newGateSender()
	rt, err := runtime.New([]runtime.Route{{ID: "release", ReceiverID: "release-in", Receiver: recv,
		Bindings: []runtime.Binding{{ID: "out", Sender: target, Address: "x"}}}},
		runtime.Options{DLQ: memtransport.NewDLQ(), StopTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(rctx) }()
	select {
	case <-target.entered:
	case <-ctx.Done():
		t.Fatal("the delivery did not reach the sender")
	}
	stop()
	<-done
	stopped := time.Now()
	waitFor(ctx, t, "the message to be back in the queue", func() bool {
		n, err := depth(brokerURL(), q)
		return err == nil && n == 1
	})
	if took := time.Since(stopped); took > 5*time.Second {
		t.Errorf("the message was back %v after the route stopped, want well before the 20s linger", took)
	}
}
