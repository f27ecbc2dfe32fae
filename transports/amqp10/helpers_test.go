package amqp10

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	amqp "github.com/Azure/go-amqp"
	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// peer is an AMQP 1.0 peer the suites run against.
type peer struct {
	name string
	cfg  SessionConfig
	// url091 is the AMQP 0-9-1 URL of a RabbitMQ peer (declaring and
	// reading queues); empty for other peers.
	url091 string
	// queue returns the AMQP 1.0 address of a fresh queue, deleted when
	// the test ends.
	queue func(t testing.TB) string
	// restart, when set, kills the peer as a crash would and starts it
	// again on the same port.
	restart func(t *testing.T)
}

// rabbitPeer is the shared RabbitMQ with its AMQP 1.0 plugin; queues are
// declared over AMQP 0-9-1 and addressed as /amq/queue/NAME.
func rabbitPeer(t testing.TB) peer {
	t.Helper()
	u091 := os.Getenv("GOBRIDGE_AMQP_URL")
	if u091 == "" {
		u091 = "amqp://guest:guest@127.0.0.1:5672/"
	}
	cfg := SessionConfig{URL: "amqp://127.0.0.1:5672", Username: "guest", Password: "guest"}
	if u := os.Getenv("GOBRIDGE_AMQP10_URL"); u != "" {
		cfg.URL = u
	}
	return rabbitPeerAt(t, "rabbitmq", u091, cfg)
}

// rabbitPeerAt is the RabbitMQ node at u091 (AMQP 0-9-1) and cfg (AMQP
// 1.0).
func rabbitPeerAt(t testing.TB, name, u091 string, cfg SessionConfig) peer {
	t.Helper()
	conn, err := amqp091.DialConfig(u091, amqp091.Config{Dial: amqp091.DefaultDial(2 * time.Second)})
	if err != nil {
		itest.Unavailable(t, "RabbitMQ at %s is unreachable: %v", cfg.URL, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	probe(t, cfg, "RabbitMQ's AMQP 1.0 plugin (scripts/ensure-rabbitmq-amqp10.sh enables it)")
	return peer{name: name, cfg: cfg, url091: u091, queue: func(t testing.TB) string {
		ch, err := conn.Channel()
		if err != nil {
			t.Fatalf("admin channel: %v", err)
		}
		q := uniqueName(t)
		if _, err := ch.QueueDeclare(q, true, false, false, false, nil); err != nil {
			t.Fatalf("declare %s: %v", q, err)
		}
		t.Cleanup(func() { _, _ = ch.QueueDelete(q, false, false, false); _ = ch.Close() })
		return "/amq/queue/" + q
	}}
}

// protonPeer builds and starts the Qpid Proton example broker on a free
// port through scripts/proton-broker.sh, and stops it when t ends. Its
// queues are created on first use.
func protonPeer(t testing.TB) peer {
	t.Helper()
	script, _ := filepath.Abs("../../scripts/proton-broker.sh")
	dir := t.TempDir()
	env := append(os.Environ(), "GOBRIDGE_PROTON_DIR="+dir)
	out, err := command(env, script, "start").Output()
	if err != nil {
		itest.Unavailable(t, "the Qpid Proton example broker cannot start (%v): run scripts/ensure-proton.sh", err)
	}
	t.Cleanup(func() { _ = command(env, script, "stop").Run() })
	addr := strings.TrimSpace(string(out))
	cfg := SessionConfig{URL: "amqp://" + addr}
	probe(t, cfg, "the Qpid Proton example broker")
	restart := func(t *testing.T) {
		t.Helper()
		if err := command(env, script, "kill").Run(); err != nil {
			t.Fatalf("kill the Proton broker: %v", err)
		}
		_, port, _ := strings.Cut(addr, ":")
		if err := command(env, script, "start", port).Run(); err != nil {
			t.Fatalf("restart the Proton broker: %v", err)
		}
	}
	return peer{name: "proton", cfg: cfg, queue: func(t testing.TB) string { return uniqueName(t) }, restart: restart}
}

func command(env []string, name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = env
	c.Stderr = os.Stderr
	return c
}

func probe(t testing.TB, cfg SessionConfig, what string) {
	t.Helper()
	cfg = cfg.WithDefaults()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	conn, err := amqp.Dial(ctx, cfg.URL, rawOptions(cfg))
	if err != nil {
		itest.Unavailable(t, "%s at %s is unreachable: %v", what, cfg.URL, err)
	}
	_ = conn.Close()
}

func rawOptions(cfg SessionConfig) *amqp.ConnOptions {
	o := &amqp.ConnOptions{SASLType: amqp.SASLTypeAnonymous()}
	if cfg.Username != "" {
		o.SASLType = amqp.SASLTypePlain(cfg.Username, cfg.Password)
	}
	return o
}

func uniqueName(t testing.TB) string {
	name := strings.NewReplacer("/", ".", " ", "_").Replace(t.Name())
	if len(name) > 60 {
		name = name[len(name)-60:]
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "gobridge-it.amqp10." + name + "." + hex.EncodeToString(b)
}

// newTestSession starts a Session on p and closes it when t ends.
func newTestSession(t testing.TB, p peer) *Session {
	t.Helper()
	return newTestSessionWith(t, p, WithName("it-"+p.name))
}

// newTestSessionWith is newTestSession with options.
func newTestSessionWith(t testing.TB, p peer, opts ...Option) *Session {
	t.Helper()
	cfg := p.cfg
	cfg.CloseTimeout = 2 * time.Second
	cfg.Reconnect.Initial = 50 * time.Millisecond
	cfg.Reconnect.Max = 500 * time.Millisecond
	s, err := NewSession(cfg, opts...)
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

// rawClient is a plain go-amqp connection the tests use to publish and
// observe, independent of the code under test.
type rawClient struct {
	conn *amqp.Conn
	sess *amqp.Session
}

func newRawClient(t testing.TB, p peer) *rawClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cfg := p.cfg.WithDefaults()
	conn, err := amqp.Dial(ctx, cfg.URL, rawOptions(cfg))
	if err != nil {
		t.Fatalf("raw dial: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	sess, err := conn.NewSession(ctx, nil)
	if err != nil {
		t.Fatalf("raw session: %v", err)
	}
	return &rawClient{conn: conn, sess: sess}
}

// publish sends env to addr the way an independent producer would:
// subject and id in the properties, headers as application-properties.
func (c *rawClient) publish(ctx context.Context, addr string, env *messaging.Envelope) error {
	s, err := c.sess.NewSender(ctx, addr, nil)
	if err != nil {
		return err
	}
	subj := env.Subject
	m := &amqp.Message{
		Header:                &amqp.MessageHeader{Durable: true},
		Properties:            &amqp.MessageProperties{MessageID: env.ID, Subject: &subj},
		ApplicationProperties: map[string]any{},
		Data:                  [][]byte{env.Payload()},
	}
	for k, v := range env.Headers {
		m.ApplicationProperties[k] = v
	}
	return s.Send(ctx, m, nil)
}

// watch attaches a receiver to addr now and returns a Receive function
// for the conformance target, accepting each message it reads.
func (c *rawClient) watch(t *testing.T, addrs ...string) func(ctx context.Context, address string) (conformance.Received, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rcvs := map[string]*amqp.Receiver{}
	for _, a := range addrs {
		r, err := c.sess.NewReceiver(ctx, a, &amqp.ReceiverOptions{Credit: 100})
		if err != nil {
			t.Fatalf("raw receiver on %s: %v", a, err)
		}
		rcvs[a] = r
	}
	return func(ctx context.Context, address string) (conformance.Received, error) {
		r := rcvs[address]
		m, err := r.Receive(ctx, nil)
		if err != nil {
			return conformance.Received{}, err
		}
		_ = r.AcceptMessage(ctx, m)
		got := conformance.Received{Address: address, Payload: m.GetData(), Headers: map[string]any{}}
		if m.Properties != nil && m.Properties.Subject != nil {
			got.Subject = *m.Properties.Subject
		}
		for k, v := range m.ApplicationProperties {
			got.Headers[k] = v
		}
		return got, nil
	}
}
