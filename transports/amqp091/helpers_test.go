package amqp091

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// brokerURL is the shared RabbitMQ of the integration suites.
func brokerURL() string {
	if u := os.Getenv("GOBRIDGE_AMQP_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// requireBroker skips the test when url's broker is unreachable, unless
// GOBRIDGE_REQUIRE_IT=1, which turns that into a failure.
func requireBroker(t testing.TB, url string) {
	t.Helper()
	conn, err := amqp.DialConfig(url, amqp.Config{Dial: amqp.DefaultDial(2 * time.Second)})
	if err == nil {
		_ = conn.Close()
		return
	}
	itest.Unavailable(t, "RabbitMQ at %s is unreachable: %v", redactURL(url), err)
}

// uniqueName returns a broker-safe name unique to this test run.
func uniqueName(t testing.TB, tag string) string {
	name := strings.NewReplacer("/", ".", " ", "_", "#", "", "*", "").Replace(t.Name())
	if len(name) > 60 {
		name = name[len(name)-60:]
	}
	return "gobridge-it." + tag + "." + name + "." + randomSuffix()
}

// admin is a plain client connection the tests use to set up, observe and
// clean up the broker, independent of the code under test.
type admin struct {
	t    testing.TB
	conn *amqp.Connection
	ch   *amqp.Channel
	mu   sync.Mutex
}

func newAdmin(t testing.TB, url string) *admin {
	t.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatalf("admin connection: %v", err)
	}
	ch, err := conn.Channel()
	if err != nil {
		t.Fatalf("admin channel: %v", err)
	}
	a := &admin{t: t, conn: conn, ch: ch}
	t.Cleanup(func() { _ = conn.Close() })
	return a
}

// channel returns a usable admin channel, reopening it after an error
// closed the previous one.
func (a *admin) channel() *amqp.Channel {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ch.IsClosed() {
		ch, err := a.conn.Channel()
		if err != nil {
			a.t.Fatalf("admin channel: %v", err)
		}
		a.ch = ch
	}
	return a.ch
}

// deleteOnCleanup removes queues and exchanges when the test ends.
func (a *admin) deleteOnCleanup(queues, exchanges []string) {
	a.t.Cleanup(func() {
		ch := a.channel()
		for _, q := range queues {
			if _, err := ch.QueueDelete(q, false, false, false); err != nil {
				ch = a.channel()
			}
		}
		for _, e := range exchanges {
			if err := ch.ExchangeDelete(e, false, false); err != nil {
				ch = a.channel()
			}
		}
	})
}

// watch consumes queue with auto-ack on its own channel and returns the
// arrivals, translated for the conformance suites.
func (a *admin) watch(queue string) <-chan conformance.Received {
	a.t.Helper()
	ch, err := a.conn.Channel()
	if err != nil {
		a.t.Fatalf("watch channel: %v", err)
	}
	ds, err := ch.Consume(queue, "", true, false, false, false, nil)
	if err != nil {
		a.t.Fatalf("watch %s: %v", queue, err)
	}
	out := make(chan conformance.Received, 1024)
	go func() {
		defer close(out)
		for d := range ds {
			in := toEnvelope(&d, time.Now)
			out <- conformance.Received{Subject: in.env.Subject, Payload: in.env.Payload(), Headers: in.env.Headers}
		}
	}()
	a.t.Cleanup(func() { _ = ch.Close() })
	return out
}

// publish sends env to the default exchange with routing key queue, the
// way a gobridge sender would, and waits for the broker's confirm.
func (a *admin) publish(ctx context.Context, exchange, key string, env *messaging.Envelope) error {
	ch, err := a.conn.Channel()
	if err != nil {
		return err
	}
	defer func() { _ = ch.Close() }()
	if err := ch.Confirm(false); err != nil {
		return err
	}
	pub := toPublishing(env, amqp.Persistent, "", false, time.Now(), nil)
	dc, err := ch.PublishWithDeferredConfirmWithContext(ctx, exchange, key, true, false, pub)
	if err != nil {
		return err
	}
	ok, err := dc.WaitContext(ctx)
	if err == nil && !ok {
		err = errors.New("broker nacked the publish")
	}
	return err
}

// receiveFrom returns a conformance Receive function over watched queues.
func receiveFrom(boxes map[string]<-chan conformance.Received) func(context.Context, string) (conformance.Received, error) {
	return func(ctx context.Context, address string) (conformance.Received, error) {
		box, ok := boxes[address]
		if !ok {
			return conformance.Received{}, errors.New("unknown address " + address)
		}
		select {
		case r, ok := <-box:
			if !ok {
				return conformance.Received{}, errors.New("watch ended")
			}
			return r, nil
		case <-ctx.Done():
			return conformance.Received{}, ctx.Err()
		}
	}
}

// newTestSession starts a session on url with topology and closes it when
// the test ends.
func newTestSession(t testing.TB, url string, topo Topology, opts ...Option) *Session {
	t.Helper()
	s, err := NewSession(SessionConfig{URL: url, Topology: topo,
		Reconnect: ReconnectConfig{Initial: 50 * time.Millisecond, Max: time.Second}}, opts...)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Close(ctx)
	})
	return s
}

// dropConnection closes the session's current connection, as a broker
// restart or network failure would; the session reconnects.
func (s *Session) dropConnection() {
	if l := s.current(); l != nil {
		_ = l.conn.Close()
	}
}

// waitUp blocks until the session is connected again or ctx ends.
func (s *Session) waitUp(ctx context.Context) error {
	_, err := s.acquire(ctx)
	return err
}

// freePort reports whether nothing listens on addr.
func freePort(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return true
	}
	_ = c.Close()
	return false
}

// retryObjects names the retry exchange and wait queues a receiver with
// cfg declares, for cleanup.
func retryObjects(cfg ReceiverConfig) (queues []string, exchange string) {
	cfg = cfg.WithDefaults()
	for _, b := range retryBuckets(cfg.Retry) {
		queues = append(queues, cfg.Retry.QueuePrefix+b.label)
	}
	return queues, cfg.Retry.Exchange
}
