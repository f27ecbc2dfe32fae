package mqtt

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/eclipse/paho.golang/autopaho"
	"github.com/eclipse/paho.golang/paho"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// brokerAddr is the machine's Mosquitto, which the integration tests use.
const brokerAddr = "127.0.0.1:1883"

// testTimeout bounds every wait in this package's tests.
const testTimeout = 20 * time.Second

// quiet discards logs.
var quiet = slog.New(slog.DiscardHandler)

// testContext ends with the test or after testTimeout.
func testContext(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// requireBroker skips the test when Mosquitto is unreachable, unless
// GOBRIDGE_REQUIRE_IT is set, in which case it fails.
func requireBroker(t testing.TB) {
	t.Helper()
	c, err := net.DialTimeout("tcp", brokerAddr, time.Second)
	if err == nil {
		_ = c.Close()
		return
	}
	itest.Unavailable(t, "Mosquitto at %s is unreachable: %v", brokerAddr, err)
}

// unique returns a fresh token for topics and client ids.
func unique() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// fastReconnect makes reconnection tests quick.
var fastReconnect = ReconnectConfig{Initial: 10 * time.Millisecond, Max: 200 * time.Millisecond, Multiplier: 2, Jitter: 0.2}

// startSession builds and starts a session on addr; it is closed when the
// test ends.
func startSession(t testing.TB, cfg SessionConfig, opts ...Option) *Session {
	t.Helper()
	s := newSession(t, cfg, opts...)
	if err := s.Start(testContext(t)); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return s
}

// newSession builds a session that is closed when the test ends.
func newSession(t testing.TB, cfg SessionConfig, opts ...Option) *Session {
	t.Helper()
	if len(cfg.URLs) == 0 {
		cfg.URLs = []string{"mqtt://" + brokerAddr}
	}
	if cfg.Reconnect == (ReconnectConfig{}) {
		cfg.Reconnect = fastReconnect
	}
	s, err := NewSession(cfg, append([]Option{WithLogger(quiet)}, opts...)...)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Close(ctx)
	})
	return s
}

// waitFor polls cond until it holds or ctx ends.
func waitFor(ctx context.Context, t testing.TB, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

// observer is an independent paho client that subscribes to topics and
// collects what arrives, translated back for the conformance suites.
type observer struct {
	cm *autopaho.ConnectionManager
	mu sync.Mutex
	ch map[string]chan conformance.Received
}

func newObserver(t testing.TB, topics ...string) *observer {
	t.Helper()
	ctx := testContext(t)
	o := &observer{ch: map[string]chan conformance.Received{}}
	for _, tp := range topics {
		o.ch[tp] = make(chan conformance.Received, 1024)
	}
	u, _ := url.Parse("mqtt://" + brokerAddr)
	cctx, cancel := context.WithCancel(context.Background())
	cm, err := autopaho.NewConnection(cctx, autopaho.ClientConfig{
		ServerUrls: []*url.URL{u}, KeepAlive: 30, CleanStartOnInitialConnection: true,
		ClientConfig: paho.ClientConfig{ClientID: "obs-" + unique(),
			OnPublishReceived: []func(paho.PublishReceived) (bool, error){o.onPublish}},
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer dcancel()
		_ = cm.Disconnect(dctx)
		cancel()
	})
	if err := cm.AwaitConnection(ctx); err != nil {
		t.Fatal(err)
	}
	var subs []paho.SubscribeOptions
	for _, tp := range topics {
		subs = append(subs, paho.SubscribeOptions{Topic: tp, QoS: 1})
	}
	if _, err := cm.Subscribe(ctx, &paho.Subscribe{Subscriptions: subs}); err != nil {
		t.Fatal(err)
	}
	o.cm = cm
	return o
}

func (o *observer) onPublish(pr paho.PublishReceived) (bool, error) {
	p := pr.Packet
	r := conformance.Received{Address: p.Topic, Payload: p.Payload, Headers: map[string]any{}}
	if p.Properties != nil {
		for _, u := range p.Properties.User {
			if u.Key == messaging.SubjectCarrier {
				r.Subject = u.Value
			} else {
				r.Headers[u.Key] = u.Value
			}
		}
	}
	o.mu.Lock()
	ch := o.ch[p.Topic]
	o.mu.Unlock()
	if ch != nil {
		ch <- r
	}
	return true, nil
}

// receive returns the next message at topic.
func (o *observer) receive(ctx context.Context, topic string) (conformance.Received, error) {
	o.mu.Lock()
	ch := o.ch[topic]
	o.mu.Unlock()
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return conformance.Received{}, ctx.Err()
	}
}
