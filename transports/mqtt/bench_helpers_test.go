package mqtt

import (
	"bytes"
	"context"
	"net/url"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/eclipse/paho.golang/autopaho"
	"github.com/eclipse/paho.golang/paho"
)

// benchPayload is the 256-byte payload of every benchmarked message.
var benchPayload = bytes.Repeat([]byte("m"), 256)

// benchRound is how many messages each side handles per round; rounds
// alternate between the plain client and the bridge so that both see the
// same machine load.
const benchRound = 2000

// cpuTime is the process's user plus system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// tally adds up one side's rounds.
type tally struct {
	msgs      int
	wall, cpu time.Duration
}

// measure runs f and adds its wall and CPU time for n messages.
func (t *tally) measure(n int, f func()) {
	c0, w0 := cpuTime(), time.Now()
	f()
	t.wall += time.Since(w0)
	t.cpu += cpuTime() - c0
	t.msgs += n
}

func (t *tally) rate() float64        { return float64(t.msgs) / t.wall.Seconds() }
func (t *tally) cpuPerMsgUs() float64 { return float64(t.cpu.Microseconds()) / float64(t.msgs) }

// report adds both sides' figures and their ratio to the benchmark.
func report(b *testing.B, plain, bridge *tally) {
	b.ReportMetric(plain.rate(), "plain-msg/s")
	b.ReportMetric(bridge.rate(), "bridge-msg/s")
	b.ReportMetric(bridge.rate()/plain.rate(), "ratio")
	b.ReportMetric(plain.cpuPerMsgUs(), "plain-cpu-µs/msg")
	b.ReportMetric(bridge.cpuPerMsgUs(), "bridge-cpu-µs/msg")
}

// plainClient is a bare autopaho connection, the baseline's client and
// the receive benchmark's producer. handler, when set, receives messages
// with paho's automatic acknowledgement.
func plainClient(b *testing.B, handler func(paho.PublishReceived) (bool, error)) *autopaho.ConnectionManager {
	b.Helper()
	u, _ := url.Parse("mqtt://" + brokerAddr)
	cfg := autopaho.ClientConfig{ServerUrls: []*url.URL{u}, KeepAlive: 30, CleanStartOnInitialConnection: true,
		ClientConfig: paho.ClientConfig{ClientID: "bench-" + unique()}}
	if handler != nil {
		cfg.OnPublishReceived = []func(paho.PublishReceived) (bool, error){handler}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cm, err := autopaho.NewConnection(ctx, cfg)
	if err != nil {
		cancel()
		b.Fatal(err)
	}
	b.Cleanup(func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer dcancel()
		_ = cm.Disconnect(dctx)
		cancel()
	})
	if err := cm.AwaitConnection(testContext(b)); err != nil {
		b.Fatal(err)
	}
	return cm
}

// publishPlain publishes n QoS 1 messages to topic from workers
// goroutines, each waiting for its PUBACK before the next.
func publishPlain(ctx context.Context, b *testing.B, cm *autopaho.ConnectionManager, topic string, n, workers int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if _, err := cm.Publish(ctx, &paho.Publish{QoS: 1, Topic: topic, Payload: benchPayload}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// counter counts messages and closes a channel when a target is reached.
type counter struct {
	n      atomic.Int64
	mu     sync.Mutex
	target int64
	hit    chan struct{}
}

// expect arms the counter for target messages in total.
func (c *counter) expect(target int64) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.target, c.hit = target, make(chan struct{})
	if c.n.Load() >= target {
		close(c.hit)
		c.hit = nil
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return c.hit
}

func (c *counter) add() {
	if v := c.n.Add(1); v >= c.target {
		c.mu.Lock()
		if c.hit != nil && v >= c.target {
			close(c.hit)
			c.hit = nil
		}
		c.mu.Unlock()
	}
}
