package amqp091

import (
	"context"
	"log/slog"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// resumeRig is a session and a consuming receiver behind a proxy, for
// measuring how long consumption takes to resume after an outage.
type resumeRig struct {
	t     *testing.T
	a     *admin
	proxy *tcpProxy
	sess  *Session
	queue string
	got   chan string
}

func newResumeRig(t *testing.T, rc ReconnectConfig) *resumeRig {
	t.Helper()
	requireBroker(t, brokerURL())
	r := &resumeRig{t: t, a: newAdmin(t, brokerURL()), proxy: newProxy(t), queue: uniqueName(t, "outage"), got: make(chan string, 16)}
	r.a.deleteOnCleanup([]string{r.queue}, nil)
	sess, err := NewSession(SessionConfig{URL: r.proxy.url(), Reconnect: rc,
		Topology: Topology{Queues: []QueueSpec{{Name: r.queue}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sess.Close(context.Background()) })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := sess.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r.sess = sess
	recv, err := NewReceiver(sess, ReceiverConfig{Queue: r.queue, Retry: RetryConfig{Mode: RetryOff}})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = recv.Run(rctx, func(_ context.Context, d ports.Delivery) error {
			_ = d.Ack(rctx)
			r.got <- d.Envelope().ID
			return nil
		})
	}()
	t.Cleanup(func() {
		stop()
		<-done
		_ = recv.Close(context.Background())
	})
	return r
}

// outage cuts the proxy for d, publishes one message straight to the
// broker meanwhile, restores the proxy and returns how long after that
// the receiver got the message.
func (r *resumeRig) outage(ctx context.Context, d time.Duration) time.Duration {
	r.t.Helper()
	r.proxy.cut()
	env := messaging.NewEnvelope("outage", []byte("after the outage"))
	if err := r.a.publish(ctx, "", r.queue, env); err != nil {
		r.t.Fatal(err)
	}
	outage := time.NewTimer(d) // the outage itself, not a wait for async work
	select {
	case <-outage.C:
	case <-ctx.Done():
		r.t.Fatal(ctx.Err())
	}
	r.proxy.restore()
	back := time.Now()
	for {
		select {
		case id := <-r.got:
			if id == env.ID {
				return time.Since(back)
			}
		case <-ctx.Done():
			r.t.Fatalf("consumption did not resume after a %v outage", d)
		}
	}
}

// TestReconnectNoticesTheBrokerBackQuickly: after a 4.5s outage the
// reconnect backoff (500ms doubling, no jitter) is in a 4s wait; the
// session must notice the broker is back within about a second, not
// sleep out the wait, and consumption resume with it.
func TestReconnectNoticesTheBrokerBackQuickly(t *testing.T) {
	noJitter := 0.0
	r := newResumeRig(t, ReconnectConfig{Initial: 500 * time.Millisecond, Max: 30 * time.Second, Jitter: &noJitter})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	took := r.outage(ctx, 4500*time.Millisecond)
	t.Logf("consumption resumed %v after the broker came back", took.Round(time.Millisecond))
	if took > 2*time.Second {
		t.Errorf("consumption resumed %v after the broker came back, want within 2s", took)
	}
}

// TestTimeToResumeAfterOutage measures, with the default reconnect
// settings, how long consumption takes to resume once the broker is back
// after outages of 5s and 30s (three and two runs). It takes about two
// minutes and runs only with GOBRIDGE_AMQP_OUTAGE=1; the figures are in
// docs/benchmarks.md.
func TestTimeToResumeAfterOutage(t *testing.T) {
	if os.Getenv("GOBRIDGE_AMQP_OUTAGE") != "1" {
		t.Skip("set GOBRIDGE_AMQP_OUTAGE=1 to measure (about two minutes)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	for _, c := range []struct {
		outage time.Duration
		runs   int
	}{{5 * time.Second, 3}, {30 * time.Second, 2}} {
		var figures []string
		for range c.runs {
			// A fresh session per run: each outage hits a connection that
			// had been up for long, with the backoff at its start.
			t.Run(c.outage.String(), func(t *testing.T) {
				r := newResumeRig(t, ReconnectConfig{})
				took := r.outage(ctx, c.outage)
				figures = append(figures, took.Round(10*time.Millisecond).String())
			})
		}
		t.Logf("outage %v: consumption resumed after %s", c.outage, strings.Join(figures, ", "))
	}
}

// TestProbeDoesNotHurryARefusingBroker: a server that accepts TCP and
// hangs up at once is not a broker that came back when a probe connects;
// the session must keep its backoff (200ms doubling to 1s: four attempts
// in 1.5s), not try again at every 20ms probe.
func TestProbeDoesNotHurryARefusingBroker(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	logs := &logRecorder{}
	noJitter := 0.0
	s, err := NewSession(SessionConfig{URL: "amqp://guest:guest@" + ln.Addr().String() + "/",
		Reconnect: ReconnectConfig{Initial: 200 * time.Millisecond, Max: time.Second, Jitter: &noJitter, ProbeInterval: 20 * time.Millisecond}},
		WithLogger(slog.New(logs)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := s.Start(ctx); err == nil {
		t.Fatal("Start succeeded against a server that hangs up")
	}
	window := time.NewTimer(1500 * time.Millisecond) // counting attempts over a fixed window
	<-window.C
	n := logs.count(slog.LevelWarn, "connection attempt failed")
	t.Logf("%d connection attempts in 1.5s", n)
	if n > 5 {
		t.Errorf("%d connection attempts in 1.5s, want at most 5: the backoff must hold for a server that refuses the session", n)
	}
}
