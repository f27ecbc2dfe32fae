package httpsse

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// quiet discards the logs of benchmarked components.
var quiet = slog.New(slog.DiscardHandler)

// waitListening polls addr until it reports an address, for at most ten
// seconds.
func waitListening(b *testing.B, addr func() string) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for addr() == "" {
		select {
		case <-ctx.Done():
			b.Fatal("the receiver did not listen")
		case <-tick.C:
		}
	}
}

// benchClients is how many keep-alive clients post at once.
const benchClients = 16

var benchBody = []byte(`{"subject":"bench.created","payload":{"order":42,"items":[1,2,3]},"headers":{"app":"bench"}}`)

// latencies collects per-operation durations from several goroutines.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d []time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d...)
	l.mu.Unlock()
}

// report adds msg/s and the 99th percentile latency to the benchmark.
func (l *latencies) report(b *testing.B, n int, elapsed time.Duration) {
	b.Helper()
	if len(l.d) == 0 || elapsed <= 0 {
		return
	}
	slices.Sort(l.d)
	p99 := l.d[min(len(l.d)-1, len(l.d)*99/100)]
	b.ReportMetric(float64(n)/elapsed.Seconds(), "msg/s")
	b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
}

// benchClient is an HTTP client that keeps enough idle connections for
// every posting goroutine.
func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients * 2, MaxIdleConns: benchClients * 2}}
}

// load posts benchBody to url n times from benchClients goroutines and
// returns the elapsed time and every request's latency.
func load(b *testing.B, client *http.Client, url string, n int) (time.Duration, []time.Duration) {
	b.Helper()
	var lat latencies
	var wg sync.WaitGroup
	work := make(chan struct{}, n)
	for range n {
		work <- struct{}{}
	}
	close(work)
	start := time.Now()
	for range benchClients {
		wg.Go(func() {
			var mine []time.Duration
			for range work {
				t0 := time.Now()
				resp, err := client.Post(url, "application/json", bytes.NewReader(benchBody))
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Errorf("status %d", resp.StatusCode)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			lat.add(mine)
		})
	}
	wg.Wait()
	return time.Since(start), lat.d
}

// plainServer serves a handler that only reads the body, the baseline.
func plainServer(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"accepted"}`+"\n")
	})}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/publish"
}

// ingressServer runs the HTTP ingress with a route to a discarding memory
// sender.
func ingressServer(b *testing.B) string {
	b.Helper()
	recv, err := NewReceiver(ReceiverConfig{Listen: "127.0.0.1:0"}, WithLogger(quiet))
	if err != nil {
		b.Fatal(err)
	}
	out := memtransport.NewSender(memtransport.SenderOptions{Discard: true})
	rt, err := runtime.New([]runtime.Route{{
		ID: "bench", ReceiverID: "http-in", Receiver: recv,
		Bindings: []runtime.Binding{{ID: "mem", Sender: out, Address: "sink"}},
		Policy:   runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
	}}, runtime.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	})
	waitListening(b, recv.Addr)
	return "http://" + recv.Addr() + "/publish"
}

// BenchmarkIngress measures HTTP ingress → route → discarding memory
// sender, and a plain net/http handler that only reads the body, each
// driven by the same keep-alive clients. One op is one message.
func BenchmarkIngress(b *testing.B) {
	for _, c := range []struct {
		name  string
		start func(*testing.B) string
	}{{"baseline_read_body", plainServer}, {"ingress_to_memory", ingressServer}} {
		b.Run(c.name, func(b *testing.B) {
			url := c.start(b)
			client := benchClient()
			defer client.CloseIdleConnections()
			b.SetBytes(int64(len(benchBody)))
			b.ReportAllocs()
			b.ResetTimer()
			elapsed, d := load(b, client, url, b.N)
			b.StopTimer()
			lat := latencies{d: d}
			lat.report(b, b.N, elapsed)
		})
	}
}

// BenchmarkIngressVsBaseline alternates rounds of 500 requests between the
// plain handler and the ingress, so that both see the same machine load,
// and reports each side's msg/s and p99 and their ratio. b.N messages go
// to each side.
func BenchmarkIngressVsBaseline(b *testing.B) {
	plain, ingress := plainServer(b), ingressServer(b)
	client := benchClient()
	defer client.CloseIdleConnections()
	load(b, client, plain, 200) // warm up connections on both sides
	load(b, client, ingress, 200)
	const round = 500
	var (
		tPlain, tIngress time.Duration
		lPlain, lIngress []time.Duration
	)
	b.ResetTimer()
	for done := 0; done < b.N; done += round {
		n := min(round, b.N-done)
		e, d := load(b, client, plain, n)
		tPlain, lPlain = tPlain+e, append(lPlain, d...)
		e, d = load(b, client, ingress, n)
		tIngress, lIngress = tIngress+e, append(lIngress, d...)
	}
	b.StopTimer()
	p99 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[min(len(d)-1, len(d)*99/100)].Microseconds())
	}
	rPlain, rIngress := float64(b.N)/tPlain.Seconds(), float64(b.N)/tIngress.Seconds()
	b.ReportMetric(rPlain, "baseline-msg/s")
	b.ReportMetric(rIngress, "ingress-msg/s")
	b.ReportMetric(rIngress/rPlain, "ratio")
	b.ReportMetric(p99(lPlain), "baseline-p99-µs")
	b.ReportMetric(p99(lIngress), "ingress-p99-µs")
}
