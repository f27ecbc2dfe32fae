package servicebus

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/gobridge-oss/gobridge/transports/servicebus/sbemu"
)

const (
	benchWindow = 100  // in-flight window of every forwarder
	benchN      = 2000 // messages per run
	benchRounds = 8    // the most iterations one emulator has queues for
)

// forwarder moves benchN messages from src to dst and returns once the
// source completed the last of them; stop releases what it holds.
type forwarder func(ctx context.Context, b testing.TB, cc ClientConfig, src, dst string) (stop func())

// BenchmarkForwardVsBaseline moves benchN 100-byte messages from one
// emulator queue to another, each iteration with three forwarders one
// after the other (in rotating order, so that a change in the machine's
// load hits all alike), each on a fresh pair of queues of one emulator:
//
//   - baseline: a plain azservicebus loop, peek-lock receive of up to
//     100, one batch send of their bodies, then the completions side by
//     side;
//   - baseline-envelope: the same loop sending what the bridge sends
//     (this sender's mapping of an envelope with the runtime's headers:
//     message id, creation time, correlation id), which costs the
//     emulator more per message;
//   - bridge: this Receiver -> a runtime route (direct_hold,
//     max_in_flight 100) -> this Sender, on one client as the loops;
//   - batch-handover: this Receiver and this Sender without the runtime,
//     the deliveries handed over in batches (gathered while they keep
//     coming, as the sender's batcher gathers sends) to one SendBatch call,
//     then acked side by side: what a route that passed whole batches
//     would cost, measured before building one.
//
// A run is timed from the start of the forwarder until the source
// completed the last message (the target accepted it before); filling the
// source is outside. It reports each throughput, the bridge's ratio to
// each loop, and per message this process's CPU and the emulator's.
func BenchmarkForwardVsBaseline(b *testing.B) {
	if b.N > benchRounds {
		b.Fatalf("at most %d iterations (-benchtime %dx)", benchRounds, benchRounds)
	}
	impls := []struct {
		name string
		run  forwarder
	}{{"baseline", forwardBaseline(false)}, {"baseline-envelope", forwardBaseline(true)}, {"bridge", forwardBridge}, {"batch-handover", forwardBatchHandover}}
	var ents []sbemu.Entity
	for i := range len(impls) * benchRounds {
		ents = append(ents, queue(fmt.Sprint("a", i), 30*time.Second), queue(fmt.Sprint("b", i), 30*time.Second))
	}
	_, cc := startEmulator(b, ents...)
	emulator := children()
	bridgeCalls.receives, bridgeCalls.sends = 0, 0
	wall := make([]time.Duration, len(impls))
	cpu := make([]time.Duration, len(impls))
	emu := make([]time.Duration, len(impls))
	b.ResetTimer()
	for i := range b.N {
		for k := range impls {
			impl := (i + k) % len(impls)
			q := len(impls)*i + impl
			src, dst := fmt.Sprint("a", q), fmt.Sprint("b", q)
			b.StopTimer()
			fillQueue(b, cc, src, benchN)
			b.StartTimer()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			e0 := cpuOf(emulator)
			w0, c0 := time.Now(), cpuTime()
			stop := impls[impl].run(ctx, b, cc, src, dst)
			wall[impl] += time.Since(w0)
			cpu[impl] += cpuTime() - c0
			emu[impl] += cpuOf(emulator) - e0
			b.StopTimer()
			stop()
			cancel()
			b.StartTimer()
		}
	}
	msgs := float64(b.N * benchN)
	rate := func(i int) float64 { return msgs / wall[i].Seconds() }
	for i, v := range impls {
		b.ReportMetric(rate(i), v.name+"-msg/s")
		b.ReportMetric(float64(cpu[i].Microseconds())/msgs, v.name+"-cpu-µs/msg")
		b.ReportMetric(float64(emu[i].Microseconds())/msgs, v.name+"-emulator-cpu-µs/msg")
	}
	b.ReportMetric(bridgeCalls.receives/msgs*100, "bridge-receives/100msgs")
	b.ReportMetric(bridgeCalls.sends/msgs*100, "bridge-sends/100msgs")
	b.ReportMetric(rate(2)/rate(0), "ratio-vs-baseline")
	b.ReportMetric(rate(2)/rate(1), "ratio-vs-baseline-envelope")
	b.ReportMetric(rate(3)/rate(0), "batch-handover-ratio-vs-baseline")
}

// bridgeCalls adds up the bridge's receive and send calls over a
// benchmark.
var bridgeCalls struct{ receives, sends float64 }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// children returns the /proc stat files of this process's running
// children (the emulator).
func children() []string {
	me := strconv.Itoa(os.Getpid())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []string
	for _, f := range stats {
		if fs := statFields(f); len(fs) >= 13 && fs[1] == me {
			out = append(out, f)
		}
	}
	return out
}

// statFields returns the fields of a /proc stat file after the command.
func statFields(path string) []string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 > len(s) {
		return nil
	}
	return strings.Fields(s[i+2:])
}

// cpuOf adds up the user and system CPU time of the processes whose stat
// files are given.
func cpuOf(stats []string) time.Duration {
	ticks := 0
	for _, f := range stats {
		if fs := statFields(f); len(fs) >= 13 {
			u, _ := strconv.Atoi(fs[11])
			k, _ := strconv.Atoi(fs[12])
			ticks += u + k
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ is 100 on Linux
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

// forwardBaseline is the reference loop on the SDK alone; with envelope
// it sends the bridge's message format instead of the bare body.
func forwardBaseline(envelope bool) forwarder {
	return func(ctx context.Context, b testing.TB, cc ClientConfig, src, dst string) func() {
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
		add := func(batch *azservicebus.MessageBatch, m *azservicebus.ReceivedMessage) error {
			if !envelope {
				return batch.AddMessage(&azservicebus.Message{Body: m.Body}, nil)
			}
			env := messaging.NewEnvelope("", m.Body)
			env.Headers = map[string]any{messaging.HeaderCorrelationID: env.ID, messaging.HeaderRouteID: "fwd", messaging.HeaderSourceID: "in"}
			am, err := toMessage(env, outbound{now: time.Now()})
			if err != nil {
				return err
			}
			return batch.AddAMQPAnnotatedMessage(am, nil)
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
					if err := add(batch, msgs[n]); err != nil {
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
}

// forwardBridge runs this module's receiver and sender on a runtime route
// until the source completed benchN messages; stop ends the route.
func forwardBridge(ctx context.Context, b testing.TB, cc ClientConfig, src, dst string) func() {
	mem := telemetry.NewMemory()
	c := newTestClient(b, cc) // one connection, as the loops have
	r, err := NewReceiver(c, ReceiverConfig{Client: cc, Queue: src}, WithMaxInFlight(benchWindow), WithMeter(mem), WithName("in"))
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewSender(c, SenderConfig{Client: cc, Entity: dst}, WithMeter(mem), WithName("out"))
	if err != nil {
		b.Fatal(err)
	}
	rt, err := runtime.New([]runtime.Route{{ID: "fwd", ReceiverID: "in", Receiver: r,
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
	bridgeCalls.receives += mem.Value("gobridge_servicebus_receive_calls_total", "in")
	bridgeCalls.sends += mem.Value("gobridge_servicebus_send_calls_total", "out")
	return func() {
		stop()
		<-done
		_ = s.Close(context.Background())
	}
}

// forwardBatchHandover forwards benchN messages with this module's
// receiver and sender and no runtime: deliveries are gathered into batches
// of up to benchWindow (a batch closes once none arrived for batchGap),
// sent with one SendBatch call with the headers the runtime adds, and
// acked side by side.
func forwardBatchHandover(ctx context.Context, b testing.TB, cc ClientConfig, src, dst string) func() {
	c := newTestClient(b, cc)
	r, err := NewReceiver(c, ReceiverConfig{Client: cc, Queue: src}, WithMaxInFlight(benchWindow), WithName("in"))
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewSender(c, SenderConfig{Client: cc, Entity: dst}, WithName("out"))
	if err != nil {
		b.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	in := make(chan ports.Delivery, benchWindow)
	done := make(chan error, 1)
	go func() {
		done <- r.Run(rctx, func(ctx context.Context, d ports.Delivery) error {
			select {
			case in <- d:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	batch := make([]ports.Delivery, 0, benchWindow)
	msgs := make([]ports.OutboundMessage, 0, benchWindow)
	gap := time.NewTimer(time.Hour)
	defer gap.Stop()
	var acks sync.WaitGroup
	for forwarded := 0; forwarded < benchN; {
		select {
		case d := <-in:
			batch = append(batch[:0], d)
		case err := <-done:
			b.Fatalf("the receiver stopped: %v", err)
		case <-ctx.Done():
			b.Fatalf("forwarded %d of %d", forwarded, benchN)
		}
		gap.Reset(batchGap)
	gather:
		for len(batch) < benchWindow {
			select {
			case d := <-in:
				batch = append(batch, d)
				gap.Reset(batchGap)
			case <-gap.C:
				break gather
			}
		}
		msgs = msgs[:0]
		for _, d := range batch {
			env := d.Envelope()
			env.Headers[messaging.HeaderCorrelationID] = env.ID
			env.Headers[messaging.HeaderRouteID] = "fwd"
			env.Headers[messaging.HeaderSourceID] = "in"
			msgs = append(msgs, ports.OutboundMessage{Envelope: env})
		}
		res, err := s.SendBatch(ctx, msgs)
		if err != nil {
			b.Fatal(err)
		}
		for i, d := range batch {
			if res[i].Err != nil {
				b.Fatal(res[i].Err)
			}
			acks.Go(func() {
				if err := d.Ack(ctx); err != nil {
					b.Error(err)
				}
			})
		}
		forwarded += len(batch)
	}
	acks.Wait()
	return func() {
		stop()
		<-done
		_ = s.Close(context.Background())
	}
}
