package httpsse

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

const (
	benchSubscribers = 100
	// benchWindow bounds how far the publisher may run ahead of the
	// slowest subscriber, so no client queue overflows.
	benchWindow = 50
)

// fanout tracks what the benchmark subscribers received.
type fanout struct {
	mu     sync.Mutex
	cond   *sync.Cond
	counts []int
	want   int // what waitAll waits for
	lat    []time.Duration
	failed error
}

func newFanout() *fanout {
	f := &fanout{counts: make([]int, benchSubscribers)}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// waitAll blocks until every subscriber received at least n events.
func (f *fanout) waitAll(n int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.want = n
	for f.failed == nil && slices.Min(f.counts) < n {
		f.cond.Wait()
	}
	return f.failed
}

func (f *fanout) fail(err error) {
	f.mu.Lock()
	if f.failed == nil {
		f.failed = err
	}
	f.mu.Unlock()
	f.cond.Broadcast()
}

// subscribe opens benchSubscribers streams on url, each read by a
// goroutine that records the latency of every event (its payload is the
// publish time in Unix nanoseconds). They stop when ctx ends.
func (f *fanout) subscribe(ctx context.Context, b *testing.B, url string) *sync.WaitGroup {
	b.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchSubscribers}}
	var wg sync.WaitGroup
	for i := range benchSubscribers {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("subscribe: %v %v", resp, err)
		}
		r := bufio.NewReaderSize(resp.Body, 64<<10)
		if _, err := r.ReadSlice('\n'); err != nil { // the stream is open and registered
			b.Fatal(err)
		}
		wg.Go(func() {
			defer resp.Body.Close()
			f.read(ctx, i, r)
		})
	}
	return &wg
}

func (f *fanout) read(ctx context.Context, i int, r *bufio.Reader) {
	var lat []time.Duration
	defer func() {
		f.mu.Lock()
		f.lat = append(f.lat, lat...)
		f.mu.Unlock()
	}()
	key := []byte(`"payload":`)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			if ctx.Err() == nil {
				f.fail(err)
			}
			return
		}
		if !bytes.HasPrefix(line, []byte("data: ")) {
			continue
		}
		j := bytes.Index(line, key)
		if j < 0 {
			f.fail(fmt.Errorf("event without payload: %q", line))
			return
		}
		num := line[j+len(key):]
		end := bytes.IndexFunc(num, func(r rune) bool { return r < '0' || r > '9' })
		sent, err := strconv.ParseInt(string(num[:end]), 10, 64)
		if err != nil {
			f.fail(err)
			return
		}
		lat = append(lat, time.Duration(time.Now().UnixNano()-sent))
		f.mu.Lock()
		f.counts[i]++
		if f.counts[i] == f.want || f.counts[i]%10 == 0 {
			f.cond.Broadcast()
		}
		f.mu.Unlock()
	}
}

// runFanout publishes b.N events with publish and reports msg/s (events
// published per second until every subscriber had them all) and the p99
// publish-to-receive latency over all deliveries.
func runFanout(b *testing.B, url string, publish func(now int64) error) {
	ctx, cancel := context.WithCancel(context.Background())
	f := newFanout()
	wg := f.subscribe(ctx, b, url)
	defer func() {
		cancel()
		wg.Wait()
	}()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		if i >= benchWindow && i%10 == 0 {
			if err := f.waitAll(i - benchWindow); err != nil {
				b.Fatal(err)
			}
		}
		if err := publish(time.Now().UnixNano()); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.waitAll(b.N); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	wg.Wait()
	l := latencies{d: f.lat}
	l.report(b, b.N, elapsed)
}

// plainFanout is the baseline: a bare net/http handler per subscriber that
// writes and flushes each event it is handed.
type plainFanout struct {
	mu   sync.Mutex
	subs []chan []byte
}

func (p *plainFanout) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ch := make(chan []byte, 4096)
	p.mu.Lock()
	p.subs = append(p.subs, ch)
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, ": open\n\n")
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	for {
		select {
		case b := <-ch:
			_, _ = w.Write(b)
			if rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

func (p *plainFanout) publish(now int64) error {
	frame := fmt.Appendf(nil, "data: {\"payload\":%d}\n\n", now)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ch := range p.subs {
		ch <- frame
	}
	return nil
}

// BenchmarkSSEFanout sends in-memory messages through a route to the SSE
// sender with 100 subscribers, and the same load through the plain
// handler above. One op is one message published (delivered 100 times).
func BenchmarkSSEFanout(b *testing.B) {
	b.Run("baseline_plain_handler", func(b *testing.B) {
		p := &plainFanout{}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		srv := &http.Server{Handler: p}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		runFanout(b, "http://"+ln.Addr().String()+"/events/bench", p.publish)
	})
	b.Run("memory_route_to_sse", func(b *testing.B) {
		sse, err := NewSSESender(SSEConfig{Listen: "127.0.0.1:0", ClientBuffer: 4096}, WithLogger(quiet))
		if err != nil {
			b.Fatal(err)
		}
		recv := memtransport.NewReceiver(memtransport.Options{NoHistory: true})
		rt, err := runtime.New([]runtime.Route{{
			ID: "bench", ReceiverID: "mem", Receiver: recv,
			Bindings: []runtime.Binding{{ID: "sse", Sender: sse, Address: "bench"}},
			Policy:   runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
		}}, runtime.Options{Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- rt.Run(ctx) }()
		defer func() {
			cancel()
			<-done // the runtime closes the sender
		}()
		runFanout(b, "http://"+sse.Addr()+"/events/bench", func(now int64) error {
			return recv.Publish(ctx, messaging.NewEnvelope("bench", strconv.AppendInt(nil, now, 10)))
		})
	})
}
