package amqp091

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// prepareBaseline is the plain forwarder: one connection, consume with
// prefetch 500, publish with confirms pipelined up to 500 outstanding,
// ack each source message after its confirm.
func prepareBaseline(ctx context.Context, b *testing.B, f benchFixture) (run, stop func()) {
	conn, err := amqp.Dial(f.url)
	if err != nil {
		b.Fatal(err)
	}
	cch, err := conn.Channel()
	if err != nil {
		b.Fatal(err)
	}
	if err := cch.Qos(benchWindow, 0, false); err != nil {
		b.Fatal(err)
	}
	pch, err := conn.Channel()
	if err != nil {
		b.Fatal(err)
	}
	if err := pch.Confirm(false); err != nil {
		b.Fatal(err)
	}
	run = func() {
		ds, err := cch.Consume(f.src, "", false, false, false, false, nil)
		if err != nil {
			b.Fatal(err)
		}
		type job struct {
			dc  *amqp.DeferredConfirmation
			tag uint64
		}
		jobs := make(chan job, benchWindow)
		done := make(chan error, 1)
		go func() {
			for range f.n {
				j := <-jobs
				if ok, err := j.dc.WaitContext(ctx); err != nil || !ok {
					done <- fmt.Errorf("confirm: %v %v", ok, err)
					return
				}
				if err := cch.Ack(j.tag, false); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
		for range f.n {
			d := <-ds
			dc, err := pch.PublishWithDeferredConfirm(f.ex, "out", false, false, amqp.Publishing{
				Headers: d.Headers, Body: d.Body, DeliveryMode: amqp.Persistent, MessageId: d.MessageId})
			if err != nil {
				b.Fatal(err)
			}
			jobs <- job{dc, d.DeliveryTag}
		}
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	return run, func() { _ = conn.Close() }
}

// countingSender signals once n sends succeeded.
type countingSender struct {
	*Sender
	n, sent int64
	done    chan struct{}
}

func (c *countingSender) Send(ctx context.Context, msg ports.OutboundMessage) error {
	err := c.Sender.Send(ctx, msg)
	if err == nil && atomic.AddInt64(&c.sent, 1) == c.n {
		close(c.done)
	}
	return err
}

type bridgeSettings struct {
	inFlight                     int
	coalesceAcks, coalesceWrites bool
	twoConns                     bool // a session each for the receiver and the sender
}

// bridgeVariant forwards through the runtime: receiver → route
// (direct_hold) → sender, both on one session (one connection, like the
// baseline).
func bridgeVariant(st bridgeSettings) func(ctx context.Context, b *testing.B, f benchFixture) (run, stop func()) {
	return func(ctx context.Context, b *testing.B, f benchFixture) (run, stop func()) {
		quiet := WithLogger(slog.New(slog.DiscardHandler))
		sess, err := NewSession(SessionConfig{URL: f.url, CoalesceWrites: &st.coalesceWrites}, quiet)
		if err != nil {
			b.Fatal(err)
		}
		if err := sess.Start(ctx); err != nil {
			b.Fatal(err)
		}
		meter := telemetry.NewMemory()
		recv, err := NewReceiver(sess, ReceiverConfig{Queue: f.src}, WithMaxInFlight(st.inFlight), quiet, WithMeter(meter))
		if err != nil {
			b.Fatal(err)
		}
		if !st.coalesceAcks {
			recv.ackHold = 0 // every ack alone, multiple=false
		}
		out := sess
		if st.twoConns {
			if out, err = NewSession(SessionConfig{URL: f.url, CoalesceWrites: &st.coalesceWrites}, quiet); err != nil {
				b.Fatal(err)
			}
		}
		snd, err := NewSender(out, SenderConfig{Exchange: f.ex}, quiet)
		if err != nil {
			b.Fatal(err)
		}
		// Open the publish channel before the clock starts, as the baseline does.
		if _, err := snd.pub.get(ctx, "bench"); err != nil {
			b.Fatal(err)
		}
		cs := &countingSender{Sender: snd, n: int64(f.n), done: make(chan struct{})}
		rt, err := runtime.New([]runtime.Route{{
			ID: "bench", ReceiverID: "src", Receiver: recv,
			Bindings: []runtime.Binding{{ID: "dst", Sender: cs, Address: "out"}},
			Policy:   runtime.Policy{MaxInFlight: st.inFlight, OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
		}}, runtime.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		runCtx, cancel := context.WithCancel(ctx)
		ran := make(chan error, 1)
		run = func() {
			go func() { ran <- rt.Run(runCtx) }()
			select {
			case <-cs.done:
			case <-ctx.Done():
				b.Fatalf("only %d of %d forwarded", atomic.LoadInt64(&cs.sent), f.n)
			}
		}
		stop = func() {
			cancel()
			if err := <-ran; err != nil {
				b.Error(err)
			}
			_ = recv.Close(context.Background())
			_ = sess.Close(context.Background())
			_ = out.Close(context.Background())
			if os.Getenv("GOBRIDGE_BENCH_VERBOSE") != "" {
				b.Logf("%d messages, %v ack frames", f.n, meter.Value("gobridge_amqp091_ack_frames_total", "amqp091"))
			}
		}
		return run, stop
	}
}
