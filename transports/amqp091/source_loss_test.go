package amqp091

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// sentLog wraps a sender and records when each message was accepted.
type sentLog struct {
	ports.Sender
	mu   sync.Mutex
	sent map[string][]time.Time
}

func (s *sentLog) Send(ctx context.Context, m ports.OutboundMessage) error {
	err := s.Sender.Send(ctx, m)
	if err == nil {
		s.mu.Lock()
		s.sent[m.Envelope.ID] = append(s.sent[m.Envelope.ID], time.Now())
		s.mu.Unlock()
	}
	return err
}

// sentAfter counts the messages accepted at least once after t.
func (s *sentLog) sentAfter(t time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, ts := range s.sent {
		if ts[len(ts)-1].After(t) {
			n++
		}
	}
	return n
}

// emitCounter counts the deliveries a receiver hands to the route.
type emitCounter struct {
	ports.Receiver
	n chan struct{}
}

func (e emitCounter) Run(ctx context.Context, emit ports.EmitFunc) error {
	return e.Receiver.Run(ctx, func(ctx context.Context, d ports.Delivery) error {
		e.n <- struct{}{}
		return emit(ctx, d)
	})
}

// TestSourceLossWhileTargetDownPublishesEachOnce is the outage of the
// issue, AMQP to AMQP: the target broker is unreachable, ten deliveries
// wait for it, and then the source connection is lost too, so the source
// broker requeues all ten. When the target comes back first, none of the
// ten stale copies may be published (each would be a certain duplicate);
// after the source is back, each message reaches the target exactly once.
func TestSourceLossWhileTargetDownPublishesEachOnce(t *testing.T) {
	requireBroker(t, brokerURL())
	a := newAdmin(t, brokerURL())
	src, dst := uniqueName(t, "src"), uniqueName(t, "dst")
	a.deleteOnCleanup([]string{src, dst}, nil)
	source, target := newProxy(t), newProxy(t)
	srcSess := newTestSession(t, source.url(), Topology{Queues: []QueueSpec{{Name: src}}})
	dstSess := newTestSession(t, target.url(), Topology{Queues: []QueueSpec{{Name: dst}}})
	recv, err := NewReceiver(srcSess, ReceiverConfig{Queue: src}, WithName("src"), WithMaxInFlight(20))
	if err != nil {
		t.Fatal(err)
	}
	snd, err := NewSender(dstSess, SenderConfig{}, WithName("dst"))
	if err != nil {
		t.Fatal(err)
	}
	sent := &sentLog{Sender: snd, sent: map[string][]time.Time{}}
	emits := make(chan struct{}, 100)
	rt, err := runtime.New([]runtime.Route{{ID: "fwd", ReceiverID: "src", Receiver: emitCounter{recv, emits},
		Bindings: []runtime.Binding{{ID: "out", Sender: sent, Address: dst}},
		Policy:   runtime.Policy{MaxInFlight: 20, SendTimeout: time.Minute}}},
		runtime.Options{DLQ: memtransport.NewDLQ(), StopTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	target.cut()
	waitFor(ctx, t, "the target session to notice", func() bool { return !dstSess.Health(ctx).Connected })
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(rctx) }()
	stopped := false
	stopRoute := func() {
		if !stopped {
			stopped = true
			stop()
			<-done
			_ = recv.Close(context.Background())
		}
	}
	defer stopRoute()
	const n = 10
	for i := range n {
		if err := a.publish(ctx, "", src, messaging.NewEnvelope("fwd", fmt.Appendf(nil, "m%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	for range n {
		select {
		case <-emits:
		case <-ctx.Done():
			t.Fatal("the deliveries did not reach the route")
		}
	}
	source.cut()
	waitFor(ctx, t, "the source session to notice", func() bool { return !srcSess.Health(ctx).Connected })
	target.restore()
	waitFor(ctx, t, "the target session to reconnect", func() bool { return dstSess.Health(ctx).Connected })
	sourceBack := time.Now()
	source.restore()
	waitFor(ctx, t, "each message to be sent after its redelivery", func() bool { return sent.sentAfter(sourceBack) == n })
	stopRoute()
	if got, err := depth(brokerURL(), dst); err != nil || got != n {
		t.Errorf("target queue holds %d messages (%v), want exactly %d: no stale copy published", got, err, n)
	}
	if got, err := depth(brokerURL(), src); err != nil || got != 0 {
		t.Errorf("source queue holds %d messages (%v), want 0", got, err)
	}
}
