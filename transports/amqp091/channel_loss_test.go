package amqp091

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// gateSender holds every send until its gate opens or the send's context
// ends, and records which messages it published (accepted after the gate
// opened) and how many sends saw their context end.
type gateSender struct {
	gate    chan struct{}
	entered chan struct{}

	mu        sync.Mutex
	published map[string]int
	cancelled int
}

func newGateSender() *gateSender {
	return &gateSender{gate: make(chan struct{}), entered: make(chan struct{}, 1024), published: map[string]int{}}
}

func (g *gateSender) Send(ctx context.Context, m ports.OutboundMessage) error {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	select {
	case <-g.gate:
		g.mu.Lock()
		g.published[m.Envelope.ID]++
		g.mu.Unlock()
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		g.cancelled++
		g.mu.Unlock()
		return fault.ErrUnavailable.WithMessage("send cancelled").Wrap(ctx.Err())
	}
}

func (g *gateSender) state() (published map[string]int, cancelled int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[string]int, len(g.published))
	for k, v := range g.published {
		out[k] = v
	}
	return out, g.cancelled
}

// logRecorder is a slog handler that keeps every record's level and text.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, r.Level.String()+" "+r.Message)
	return nil
}
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecorder) WithGroup(string) slog.Handler      { return l }

// count returns how many records are at level and contain text.
func (l *logRecorder) count(level slog.Level, text string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.HasPrefix(line, level.String()+" ") && strings.Contains(line, text) {
			n++
		}
	}
	return n
}

// TestChannelLossCancelsInFlightSends cuts the connection between the
// receiver and RabbitMQ while ten deliveries wait behind a blocked target.
// The broker takes those messages back, so the bridge must stop working
// on them: every blocked send's context ends, none of them is published
// when the target opens again, each message is published once after its
// redelivery, and the loss is logged once, not once per message.
func TestChannelLossCancelsInFlightSends(t *testing.T) {
	requireBroker(t, brokerURL())
	a := newAdmin(t, brokerURL())
	q := uniqueName(t, "loss")
	a.deleteOnCleanup([]string{q}, nil)
	logs := &logRecorder{}
	log := slog.New(logs)
	proxy := newProxy(t)
	sess := newTestSession(t, proxy.url(), Topology{Queues: []QueueSpec{{Name: q}}}, WithLogger(log))
	recv, err := NewReceiver(sess, ReceiverConfig{Queue: q}, WithName("loss-in"), WithLogger(log), WithMaxInFlight(20))
	if err != nil {
		t.Fatal(err)
	}
	target := newGateSender()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	const n = 10
	ids := map[string]bool{}
	for i := range n {
		env := messaging.NewEnvelope("loss", fmt.Appendf(nil, "m%d", i))
		ids[env.ID] = true
		if err := a.publish(ctx, "", q, env); err != nil {
			t.Fatal(err)
		}
	}
	rt, err := runtime.New([]runtime.Route{{ID: "loss", ReceiverID: "loss-in", Receiver: recv,
		Bindings: []runtime.Binding{{ID: "out", Sender: target, Address: "x"}},
		Policy:   runtime.Policy{MaxInFlight: 20}}}, runtime.Options{Logger: log, DLQ: memtransport.NewDLQ()})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Run(rctx) }()
	stopped := false
	stopRoute := func() {
		if !stopped {
			stopped = true
			stop()
			<-done
			_ = recv.Close(context.Background())
		}
	}
	defer stopRoute()

	for range n {
		select {
		case <-target.entered:
		case <-ctx.Done():
			t.Fatal("the deliveries did not reach the sender")
		}
	}
	proxy.cut()
	waitFor(ctx, t, "every blocked send to see its context end", func() bool {
		_, c := target.state()
		return c == n
	})
	close(target.gate)
	proxy.restore()
	waitFor(ctx, t, "every message to be published after its redelivery", func() bool {
		p, _ := target.state()
		return len(p) == n
	})
	stopRoute()
	published, _ := target.state()
	for id := range ids {
		if published[id] != 1 {
			t.Errorf("message %s published %d times, want once", id, published[id])
		}
	}
	if d, err := depth(brokerURL(), q); err != nil || d != 0 {
		t.Errorf("queue depth after the route stopped = %d (%v), want 0: every redelivery acked", d, err)
	}
	for _, text := range []string{"retry failed", "ack failed"} {
		if got := logs.count(slog.LevelWarn, text); got != 0 {
			t.Errorf("%d WARN lines %q, want none", got, text)
		}
	}
	if got := logs.count(slog.LevelWarn, "consume channel lost"); got != 1 {
		t.Errorf("%d WARN lines about the lost consume channel, want 1", got)
	}
}

// TestSettlementReturnsWhenTheConnectionIsCut: while the broker is
// unreachable, settling a delivery of the lost channel returns at once
// with a transient CONNECTION_LOST error, even under a context that never
// ends (a delayed retry must not wait for the reconnect and a confirm),
// and leaves the message to the broker, which redelivers it once the
// connection is back.
func TestSettlementReturnsWhenTheConnectionIsCut(t *testing.T) {
	requireBroker(t, brokerURL())
	cases := []struct {
		name string
		mode RetryMode
		// held settles before the cut: a requeue retry holding for its delay.
		held   bool
		settle func(d ports.Delivery) error
	}{
		{"ack", RetryDelayed, false, func(d ports.Delivery) error { return d.Ack(context.Background()) }},
		{"delayed retry", RetryDelayed, false, func(d ports.Delivery) error {
			return d.Retry(context.Background(), 50*time.Millisecond, nil)
		}},
		{"requeue retry holding", RetryRequeue, true, func(d ports.Delivery) error {
			return d.Retry(context.Background(), time.Minute, nil)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := newAdmin(t, brokerURL())
			q := uniqueName(t, "cut")
			cfg := ReceiverConfig{Queue: q, Retry: RetryConfig{Mode: c.mode, Delays: []time.Duration{50 * time.Millisecond}}}
			waits, ex := retryObjects(cfg)
			a.deleteOnCleanup(append([]string{q}, waits...), []string{ex})
			proxy := newProxy(t)
			sess := newTestSession(t, proxy.url(), Topology{Queues: []QueueSpec{{Name: q}}})
			recv, err := NewReceiver(sess, cfg, WithName("cut-in"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = recv.Close(context.Background()) })
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			got := make(chan ports.Delivery, 4)
			rctx, stop := context.WithCancel(ctx)
			runDone := make(chan struct{})
			go func() {
				defer close(runDone)
				_ = recv.Run(rctx, func(_ context.Context, d ports.Delivery) error { got <- d; return nil })
			}()
			defer func() { stop(); <-runDone }()
			env := messaging.NewEnvelope("cut", []byte("settle me"))
			if err := a.publish(ctx, "", q, env); err != nil {
				t.Fatal(err)
			}
			var d ports.Delivery
			select {
			case d = <-got:
			case <-ctx.Done():
				t.Fatal("no delivery")
			}
			result := make(chan error, 1)
			if c.held {
				go func() { result <- c.settle(d) }()
				hold := time.NewTimer(300 * time.Millisecond)
				select {
				case err := <-result:
					t.Fatalf("Retry returned %v before its delay; it must hold the message", err)
				case <-hold.C:
				}
			}
			proxy.cut()
			waitFor(ctx, t, "the session to notice the cut", func() bool { return !sess.Health(ctx).Connected })
			if !c.held {
				go func() { result <- c.settle(d) }()
			}
			prompt := time.NewTimer(3 * time.Second)
			defer prompt.Stop()
			select {
			case err := <-result:
				if fault.CodeOf(err) != fault.CodeConnectionLost {
					t.Errorf("settlement on the cut channel = %v, want CONNECTION_LOST", err)
				}
			case <-prompt.C:
				t.Fatal("settlement still blocked 3s after the connection was cut")
			}
			proxy.restore()
			select {
			case d2 := <-got:
				if d2.Envelope().ID != env.ID {
					t.Errorf("redelivered %s, want %s", d2.Envelope().ID, env.ID)
				}
				if err := d2.Ack(ctx); err != nil {
					t.Fatal(err)
				}
			case <-ctx.Done():
				t.Fatal("the message was not redelivered after the connection came back")
			}
			for _, w := range waits {
				if n, err := depth(brokerURL(), w); err == nil && n != 0 {
					t.Errorf("wait queue %s holds %d copies; the broker redelivers the original, a copy is a duplicate", w, n)
				}
			}
		})
	}
}

// TestRunAndCloseReturnWhileTheBrokerIsSilent: the network to the broker
// goes silent (a partition: the connection stays open, nothing arrives)
// while a delivery is in flight. Stopping Run, settling the delivery and
// closing the receiver must each return promptly rather than wait for the
// broker's answer until the heartbeat gives up on the connection.
func TestRunAndCloseReturnWhileTheBrokerIsSilent(t *testing.T) {
	requireBroker(t, brokerURL())
	a := newAdmin(t, brokerURL())
	q := uniqueName(t, "silent")
	a.deleteOnCleanup([]string{q}, nil)
	proxy := newProxy(t)
	sess := newTestSession(t, proxy.url(), Topology{Queues: []QueueSpec{{Name: q}}})
	cfg := ReceiverConfig{Queue: q, Retry: RetryConfig{Delays: []time.Duration{time.Second}}}
	waits, ex := retryObjects(cfg)
	a.deleteOnCleanup(waits, []string{ex})
	recv, err := NewReceiver(sess, cfg, WithName("silent-in"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	got := make(chan ports.Delivery, 1)
	rctx, stop := context.WithCancel(ctx)
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		_ = recv.Run(rctx, func(_ context.Context, d ports.Delivery) error { got <- d; return nil })
	}()
	if err := a.publish(ctx, "", q, messaging.NewEnvelope("silent", []byte("in flight"))); err != nil {
		t.Fatal(err)
	}
	var d ports.Delivery
	select {
	case d = <-got:
	case <-ctx.Done():
		t.Fatal("no delivery")
	}
	if err := d.Retry(ctx, time.Second, nil); err != nil { // opens the retry publisher, which Close must close
		t.Fatal(err)
	}
	select {
	case d = <-got:
	case <-ctx.Done():
		t.Fatal("no redelivery")
	}
	proxy.silence()
	prompt := func(what string, f func()) {
		t.Helper()
		done := make(chan struct{})
		start := time.Now()
		go func() { defer close(done); f() }()
		limit := time.NewTimer(2 * time.Second)
		defer limit.Stop()
		select {
		case <-done:
			t.Logf("%s returned after %v", what, time.Since(start).Round(time.Millisecond))
		case <-limit.C:
			t.Errorf("%s still blocked after 2s of silence", what)
			<-done
		}
	}
	prompt("Run, stopped", func() { stop(); <-runDone })
	prompt("Ack", func() { _ = d.Ack(context.Background()) })
	prompt("Close", func() {
		cctx, ccancel := context.WithTimeout(context.Background(), time.Second)
		defer ccancel()
		_ = recv.Close(cctx)
	})
}
