package servicebus

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"

	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/gobridge-oss/gobridge/transports/servicebus/sbemu"
)

const (
	benchWindow = 100  // in-flight window of both forwarders
	benchN      = 2000 // messages per iteration
	benchPairs  = 8    // queue pairs per emulator: the most iterations
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkForwardVsBaseline moves benchN messages from one emulator
// queue to another with a plain azservicebus forwarder (peek-lock receive
// of up to 100, one batch send, then the completions side by side) and
// with a Receiver -> runtime route (direct_hold, max_in_flight 100) ->
// Sender. Each iteration runs both, one after the other (in alternating
// order, so that a change in the machine's load hits both alike), each on
// a fresh pair of queues of the same emulator, measured from the start of
// the forwarder until the source completed the last message (the target
// accepted it before); filling the source is outside. It reports both
// throughputs, their ratio (bridge over baseline), and this process's CPU
// per message for each (the emulator's own CPU is not counted).
func BenchmarkForwardVsBaseline(b *testing.B) {
	if b.N > benchPairs {
		b.Fatalf("at most %d iterations (-benchtime %dx)", benchPairs, benchPairs)
	}
	var ents []sbemu.Entity
	for i := range 2 * benchPairs {
		ents = append(ents, queue(fmt.Sprint("a", i), 30*time.Second), queue(fmt.Sprint("b", i), 30*time.Second))
	}
	_, cc := startEmulator(b, ents...)
	impls := []func(ctx context.Context, b testing.TB, cc ClientConfig, src, dst string) (stop func()){forwardBaseline, forwardBridge}
	var wall, cpu [2]time.Duration
	b.ResetTimer()
	for i := range b.N {
		for k := range 2 {
			impl := (i + k) % 2 // alternate which goes first
			q := 2*i + impl
			src, dst := fmt.Sprint("a", q), fmt.Sprint("b", q)
			b.StopTimer()
			fillQueue(b, cc, src, benchN)
			b.StartTimer()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			w0, c0 := time.Now(), cpuTime()
			stop := impls[impl](ctx, b, cc, src, dst)
			wall[impl] += time.Since(w0)
			cpu[impl] += cpuTime() - c0
			b.StopTimer()
			stop()
			cancel()
			b.StartTimer()
		}
	}
	msgs := float64(b.N * benchN)
	base, bridge := msgs/wall[0].Seconds(), msgs/wall[1].Seconds()
	b.ReportMetric(base, "baseline-msg/s")
	b.ReportMetric(bridge, "bridge-msg/s")
	b.ReportMetric(bridge/base, "ratio")
	b.ReportMetric(float64(cpu[0].Microseconds())/msgs, "baseline-cpu-µs/msg")
	b.ReportMetric(float64(cpu[1].Microseconds())/msgs, "bridge-cpu-µs/msg")
}

// fillQueue sends n 100-byte messages to queue in batches.
func fillQueue(b testing.TB, cc ClientConfig, queue string, n int) {
	b.Helper()
	c := newTestClient(b, cc)
	s, err := c.NewSender(queue, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(context.Background())
	body := make([]byte, 100)
	for sent := 0; sent < n; {
		batch, err := s.NewMessageBatch(b.Context(), nil)
		if err != nil {
			b.Fatal(err)
		}
		for ; sent < n; sent++ {
			if err := batch.AddMessage(&azservicebus.Message{Body: body}, nil); err != nil {
				break
			}
		}
		if err := s.SendMessageBatch(b.Context(), batch, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// forwardBaseline is the reference forwarder on the SDK alone. It returns
// once the source completed benchN messages.
func forwardBaseline(ctx context.Context, b testing.TB, cc ClientConfig, src, dst string) func() {
	c := newTestClient(b, cc)
	rcv, err := c.NewReceiverForQueue(src, nil)
	if err != nil {
		b.Fatal(err)
	}
	snd, err := c.NewSender(dst, nil)
	if err != nil {
		b.Fatal(err)
	}
	stop := func() {
		_ = rcv.Close(context.Background())
		_ = snd.Close(context.Background())
	}
	for done := 0; done < benchN; {
		msgs, err := rcv.ReceiveMessages(ctx, benchWindow, nil)
		if err != nil {
			b.Fatal(err)
		}
		for len(msgs) > 0 {
			batch, err := snd.NewMessageBatch(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for ; n < len(msgs); n++ {
				if err := batch.AddMessage(&azservicebus.Message{Body: msgs[n].Body, ApplicationProperties: msgs[n].ApplicationProperties}, nil); err != nil {
					break
				}
			}
			if err := snd.SendMessageBatch(ctx, batch, nil); err != nil {
				b.Fatal(err)
			}
			var wg sync.WaitGroup
			for _, m := range msgs[:n] {
				wg.Go(func() {
					if err := rcv.CompleteMessage(ctx, m, nil); err != nil {
						b.Error(err)
					}
				})
			}
			wg.Wait()
			done += n
			msgs = msgs[n:]
		}
	}
	return stop
}

// forwardBridge runs the transport's receiver and sender on a runtime
// route until the source completed benchN messages; stop ends the route.
func forwardBridge(ctx context.Context, b testing.TB, cc ClientConfig, src, dst string) func() {
	mem := telemetry.NewMemory()
	r, err := NewReceiver(newTestClient(b, cc), ReceiverConfig{Client: cc, Queue: src}, WithMaxInFlight(benchWindow), WithMeter(mem), WithName("in"))
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewSender(newTestClient(b, cc), SenderConfig{Client: cc, Entity: dst})
	if err != nil {
		b.Fatal(err)
	}
	rt, err := runtime.New([]runtime.Route{{ID: "fwd", Receiver: r,
		Policy:   runtime.Policy{MaxInFlight: benchWindow, OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
		Bindings: []runtime.Binding{{ID: "b", Sender: s}}}},
		runtime.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(rctx) }()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for mem.Value("gobridge_servicebus_settled_total", "in", outCompleted) < benchN {
		select {
		case <-tick.C:
		case err := <-done:
			b.Fatalf("the route stopped: %v", err)
		case <-ctx.Done():
			b.Fatalf("forwarded %v of %d", mem.Value("gobridge_servicebus_settled_total", "in", outCompleted), benchN)
		}
	}
	return func() {
		stop()
		<-done
		_ = s.Close(context.Background())
	}
}
