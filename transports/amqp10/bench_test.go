package amqp10

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

const (
	benchWindow = 500
	benchN      = 5000
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkForwardVsBaseline moves benchN messages from one RabbitMQ
// queue to another over AMQP 1.0, with a plain go-amqp forwarder (credit
// 500, sends in flight, accept after the outcome) and with a Receiver →
// runtime route (direct_hold, max_in_flight 500) → Sender. It reports
// messages per second and this process's CPU per message; each
// iteration is one run of benchN messages, measured from the first dial
// until the target has accepted the last message (setup of the queues
// and checks of their depths are outside).
func BenchmarkForwardVsBaseline(b *testing.B) {
	for _, v := range []struct {
		name string
		run  func(ctx context.Context, b *testing.B, p peer, src, dst string) (stop func())
	}{{"impl=baseline", forwardBaseline}, {"impl=bridge", forwardBridge}} {
		b.Run(v.name, func(b *testing.B) {
			p := rabbitPeer(b)
			var wall, cpu time.Duration
			for range b.N {
				src, dst := p.queue(b), p.queue(b)
				fill(b, p, src)
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				w0, c0 := time.Now(), cpuTime()
				stop := v.run(ctx, b, p, src, dst)
				wall += time.Since(w0)
				cpu += cpuTime() - c0
				stop()
				waitDepth(ctx, b, p.url091, dst[len("/amq/queue/"):], func(d int) bool { return d >= benchN })
				cancel()
			}
			msgs := float64(b.N * benchN)
			b.ReportMetric(msgs/wall.Seconds(), "msg/s")
			b.ReportMetric(float64(cpu.Microseconds())/msgs, "cpu-µs/msg")
		})
	}
}

func fill(b *testing.B, p peer, q string) {
	raw := newRawClient(b, p)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := raw.sess.NewSender(ctx, q, nil)
	if err != nil {
		b.Fatal(err)
	}
	rs := make([]amqp.SendReceipt, 0, benchN)
	for i := range benchN {
		r, err := s.SendWithReceipt(ctx, &amqp.Message{Data: [][]byte{fmt.Appendf(nil, "m%05d", i)},
			Header: &amqp.MessageHeader{Durable: true}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		rs = append(rs, r)
	}
	for _, r := range rs {
		if _, err := r.Wait(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// forwardBaseline is the plain forwarder. Its credit is topped up one
// per accepted message (go-amqp's automatic credit stalls on RabbitMQ
// 3.10). It returns once every message was accepted by the target and
// on the source.
func forwardBaseline(ctx context.Context, b *testing.B, p peer, src, dst string) func() {
	raw := newRawClient(b, p)
	rcv, err := raw.sess.NewReceiver(ctx, src, &amqp.ReceiverOptions{Credit: -1})
	if err != nil {
		b.Fatal(err)
	}
	if err := rcv.IssueCredit(benchWindow); err != nil {
		b.Fatal(err)
	}
	snd, err := raw.sess.NewSender(ctx, dst, nil)
	if err != nil {
		b.Fatal(err)
	}
	type job struct {
		m *amqp.Message
		r amqp.SendReceipt
	}
	jobs := make(chan job, benchWindow)
	done := make(chan error, 1)
	go func() {
		for range benchN {
			j := <-jobs
			if _, err := j.r.Wait(ctx); err != nil {
				done <- err
				return
			}
			if err := rcv.AcceptMessage(ctx, j.m); err != nil {
				done <- err
				return
			}
			_ = rcv.IssueCredit(1)
		}
		done <- nil
	}()
	for range benchN {
		m, err := rcv.Receive(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		r, err := snd.SendWithReceipt(ctx, &amqp.Message{Data: m.Data, Header: m.Header, Properties: m.Properties,
			ApplicationProperties: m.ApplicationProperties}, nil)
		if err != nil {
			b.Fatal(err)
		}
		jobs <- job{m, r}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	return func() {}
}

// countingSender signals once n sends were accepted.
type countingSender struct {
	next ports.Sender
	n    int64
	sent atomic.Int64
	all  chan struct{}
}

func (s *countingSender) Send(ctx context.Context, msg ports.OutboundMessage) error {
	err := s.next.Send(ctx, msg)
	if err == nil && s.sent.Add(1) == s.n {
		close(s.all)
	}
	return err
}

// forwardBridge runs the route and returns once the target accepted
// every message; the returned function stops the route.
func forwardBridge(ctx context.Context, b *testing.B, p peer, src, dst string) func() {
	sess := newTestSession(b, p)
	recv, err := NewReceiver(sess, ReceiverConfig{Address: src, Retry: RetryReleased}, WithMaxInFlight(benchWindow))
	if err != nil {
		b.Fatal(err)
	}
	send, err := NewSender(sess, SenderConfig{})
	if err != nil {
		b.Fatal(err)
	}
	counted := &countingSender{next: send, n: benchN, all: make(chan struct{})}
	rt, err := runtime.New([]runtime.Route{{
		ID: "bench", ReceiverID: "src", Receiver: recv, DeliveryMode: runtime.DirectHold,
		Bindings: []runtime.Binding{{ID: "dst", Sender: counted, Address: dst}},
		Policy:   runtime.Policy{MaxInFlight: benchWindow, SendTimeout: 10 * time.Second},
	}}, runtime.Options{DLQ: memtransport.NewDLQ(), StopTimeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(runCtx) }()
	select {
	case <-counted.all:
	case err := <-done:
		b.Fatalf("the route stopped early: %v", err)
	case <-ctx.Done():
		b.Fatalf("only %d of %d messages were accepted", counted.sent.Load(), benchN)
	}
	return func() {
		stop()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		waitDepth(ctx, b, p.url091, src[len("/amq/queue/"):], func(d int) bool { return d == 0 })
	}
}
