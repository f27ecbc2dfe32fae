package sqs

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// slowSender takes hold to accept each message and counts the sends it
// was asked for.
type slowSender struct {
	hold    time.Duration
	started atomic.Int64
	done    chan struct{}
}

func (s *slowSender) Send(ctx context.Context, _ ports.OutboundMessage) error {
	first := s.started.Add(1) == 1
	t := time.NewTimer(s.hold)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	if first {
		close(s.done)
	}
	return nil
}

// Through the runtime: a message whose send takes 3x the queue's
// visibility timeout is kept invisible by the runtime's lease keeper
// (Delivery.Extend), reaches the target once, and is deleted once.
func TestRuntimeKeepsTheMessageInvisibleWhileTheTargetIsSlow(t *testing.T) {
	itest.Short(t, "holds a message for 6s")
	cc := emulatorClient(t)
	base := testAPI(t, cc)
	q := newQueue(t, base, map[string]string{"VisibilityTimeout": "2"})
	api := &countingAPI{API: base, deleted: map[string]int{}}
	r, err := NewReceiver(api, ReceiverConfig{Client: cc, Queue: q, WaitTime: time.Second}, WithMaxInFlight(4))
	if err != nil {
		t.Fatal(err)
	}
	target := &slowSender{hold: 6 * time.Second, done: make(chan struct{})}
	rt, err := runtime.New([]runtime.Route{{ID: "r", Receiver: r,
		Policy:   runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
		Bindings: []runtime.Binding{{ID: "b", Sender: target}}}},
		runtime.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("runtime.New: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- rt.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	s, err := NewSender(base, SenderConfig{Client: cc, Queue: q, Batch: boolPtr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(t.Context(), ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte("slow"))}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-target.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the message never reached the target")
	}
	// The ack's delete follows the send; then watch for longer than the
	// visibility timeout for a second delivery.
	for deadline := time.Now().Add(5 * time.Second); ; {
		api.mu.Lock()
		n := len(api.deleted)
		api.mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		waitTick()
	}
	quiet := time.NewTimer(3 * time.Second)
	defer quiet.Stop()
	<-quiet.C
	if n := target.started.Load(); n != 1 {
		t.Errorf("the target was asked to send the message %d times, want once", n)
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.deleted) != 1 {
		t.Errorf("deleted %v, want one message deleted once", api.deleted)
	}
	for h, n := range api.deleted {
		if n != 1 {
			t.Errorf("receipt %s deleted %d times", h, n)
		}
	}
}
