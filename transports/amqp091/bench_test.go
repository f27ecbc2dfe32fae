package amqp091

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// The forwarding benchmarks move persistent 256-byte messages from a queue
// to an exchange (bound to a queue) and report msg/s and this process's
// CPU time per message (getrusage), for a plain amqp091-go forwarder and
// for the bridge. Connections, channels and the route are set up before
// the clock starts and torn down after it stops; the measured window is
// consuming, forwarding and settling every message.
//
//	go test -run '^$' -bench ForwardVsBaseline -benchtime 40000x -count 3 .
//	go test -run '^$' -bench 'Forward$' -benchtime 20000x -count 5 . > out.txt
//	benchstat -col /impl out.txt
const (
	benchWindow  = 500 // prefetch and outstanding confirms
	benchPayload = 256
	benchRound   = 10000
)

// forwarder is one way of moving f.n messages: prepare connects and
// returns run, which forwards them all, and stop, which tears down.
type forwarder struct {
	name    string
	prepare func(ctx context.Context, b *testing.B, f benchFixture) (run, stop func())
}

func forwarders() []forwarder {
	off := false
	return []forwarder{
		{"impl=baseline", prepareBaseline},
		{"impl=bridge", bridgeVariant(bridgeSettings{inFlight: benchWindow, coalesceAcks: true, coalesceWrites: true})},
		{"impl=bridge-ack-each", bridgeVariant(bridgeSettings{inFlight: benchWindow, coalesceWrites: true})},
		{"impl=bridge-plain-writes", bridgeVariant(bridgeSettings{inFlight: benchWindow, coalesceAcks: true, coalesceWrites: off})},
		{"impl=bridge-inflight-200", bridgeVariant(bridgeSettings{inFlight: 200, coalesceAcks: true, coalesceWrites: true})},
		{"impl=bridge-two-conns", bridgeVariant(bridgeSettings{inFlight: benchWindow, coalesceAcks: true, coalesceWrites: true, twoConns: true})},
	}
}

// measured runs one forwarder over a fresh fixture of n messages and
// returns the wall and CPU time of its run.
func measured(ctx context.Context, b *testing.B, url string, fw forwarder, n int) (wall, cpu time.Duration) {
	b.StopTimer()
	f := newBenchFixture(b, url, n)
	run, stop := fw.prepare(ctx, b, f)
	stopProfile := profileWindow(b, fw.name)
	var r0, r1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	start := time.Now()
	b.StartTimer()
	run()
	b.StopTimer()
	wall = time.Since(start)
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	stopProfile()
	stop()
	cpu = time.Duration(r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano())
	return wall, cpu
}

// BenchmarkForward runs each forwarder alone, for benchstat.
func BenchmarkForward(b *testing.B) {
	url := brokerURL()
	requireBroker(b, url)
	for _, fw := range forwarders() {
		b.Run(fw.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			wall, cpu := measured(ctx, b, url, fw, b.N)
			b.ReportMetric(float64(b.N)/wall.Seconds(), "msg/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/msg")
			b.ReportMetric(loadAverage(), "load1")
		})
	}
}

// BenchmarkForwardVsBaseline runs every forwarder in alternating rounds
// of 10000 messages (the order rotates each round), so that the load of a
// shared machine hits them alike, and reports each one's msg/s and CPU
// µs per message plus the bridge's ratios to the plain forwarder.
func BenchmarkForwardVsBaseline(b *testing.B) {
	url := brokerURL()
	requireBroker(b, url)
	fws := forwarders()
	type total struct {
		n         int
		wall, cpu time.Duration
	}
	totals := make([]total, len(fws))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	for r := 0; r*benchRound < b.N; r++ {
		n := min(benchRound, b.N-r*benchRound)
		for k := range fws {
			i := (k + r) % len(fws)
			wall, cpu := measured(ctx, b, url, fws[i], n)
			totals[i].wall += wall
			totals[i].cpu += cpu
			totals[i].n += n
		}
	}
	rate := func(t total) float64 { return float64(t.n) / t.wall.Seconds() }
	cpu := func(t total) float64 { return float64(t.cpu.Microseconds()) / float64(t.n) }
	for i, fw := range fws {
		name := strings.TrimPrefix(fw.name, "impl=")
		b.ReportMetric(rate(totals[i]), name+"-msg/s")
		b.ReportMetric(cpu(totals[i]), name+"-cpu-µs/msg")
	}
	b.ReportMetric(rate(totals[1])/rate(totals[0]), "throughput-ratio")
	b.ReportMetric(cpu(totals[1])/cpu(totals[0]), "cpu-ratio")
	b.ReportMetric(loadAverage(), "load1")
}

// benchFixture is a source queue preloaded with n messages and a target
// exchange bound to a target queue with key "out".
type benchFixture struct {
	url, src, ex, dst string
	n                 int
}

func newBenchFixture(b *testing.B, url string, n int) benchFixture {
	b.Helper()
	a := newAdmin(b, url)
	f := benchFixture{url: url, src: uniqueName(b, "bsrc"), ex: uniqueName(b, "bex"), dst: uniqueName(b, "bdst"), n: n}
	ch := a.channel()
	for _, q := range []string{f.src, f.dst} {
		if _, err := ch.QueueDeclare(q, true, false, false, false, nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := ch.ExchangeDeclare(f.ex, "direct", true, false, false, false, nil); err != nil {
		b.Fatal(err)
	}
	if err := ch.QueueBind(f.dst, "out", f.ex, false, nil); err != nil {
		b.Fatal(err)
	}
	waits, retryEx := retryObjects(ReceiverConfig{Queue: f.src}) // the bridge's receivers declare them
	a.deleteOnCleanup(append([]string{f.src, f.dst}, waits...), []string{f.ex, retryEx})
	body := []byte(strings.Repeat("x", benchPayload))
	pub, err := a.conn.Channel()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = pub.Close() }()
	if err := pub.Confirm(false); err != nil {
		b.Fatal(err)
	}
	var window []*amqp.DeferredConfirmation
	for i := range n {
		dc, err := pub.PublishWithDeferredConfirm("", f.src, false, false, amqp.Publishing{
			DeliveryMode: amqp.Persistent, MessageId: fmt.Sprintf("bench-%08d", i),
			Headers: amqp.Table{"gobridge.subject": "bench.forward"}, Body: body})
		if err != nil {
			b.Fatal(err)
		}
		if window = append(window, dc); len(window) == benchWindow || i == n-1 {
			for _, dc := range window {
				dc.Wait()
			}
			window = window[:0]
		}
	}
	return f
}

// profileWindow writes a CPU profile of the measured window alone to
// $GOBRIDGE_BENCH_PROFILE-<variant>.prof when that variable is set.
func profileWindow(b *testing.B, variant string) func() {
	base := os.Getenv("GOBRIDGE_BENCH_PROFILE")
	if base == "" || b.N < 1000 {
		return func() {}
	}
	f, err := os.Create(base + "-" + strings.TrimPrefix(variant, "impl=") + ".prof")
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}

// loadAverage returns the one-minute load average, or -1.
func loadAverage() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	v, err := strconv.ParseFloat(strings.Fields(string(raw))[0], 64)
	if err != nil {
		return -1
	}
	return v
}
