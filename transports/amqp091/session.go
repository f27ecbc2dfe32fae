package amqp091

import (
	"context"
	"crypto/tls"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/url"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// eventBuffer is how many lifecycle events wait for a slow reader before
// newer ones are dropped (Health stays the source of truth).
const eventBuffer = 64

// Session owns one AMQP connection shared by the receivers and senders
// built on it, and keeps it alive: it reconnects with backoff, declares
// the topology on every new connection before handing it out, and reports
// health and lifecycle events. It implements ports.Session.
//
// A session connects on Start, or on first use by a receiver or sender.
// Close ends it; receivers and senders on a closed session fail with a
// transient UNAVAILABLE error.
type Session struct {
	cfg  SessionConfig
	url  *url.URL
	tls  *tls.Config // nil for amqp://
	o    options
	log  *slog.Logger
	m    sessionMetrics
	rand func() float64

	ctx    context.Context // ends with Close; bounds the supervisor
	cancel context.CancelFunc
	done   chan struct{} // closed when the supervisor returned

	startOnce sync.Once
	first     chan error // result of the first connection attempt

	mu      sync.Mutex
	cur     *link         // nil while disconnected
	ready   chan struct{} // closed once cur is set; replaced when it drops
	health  ports.SessionHealth
	plan    *ports.SessionPlan
	events  chan ports.SessionEvent
	closed  bool
	started bool
}

// link is one live connection. lost is closed when it drops.
type link struct {
	conn *amqp.Connection
	lost chan struct{}
}

// NewSession checks cfg and builds a session; it does not connect yet.
func NewSession(cfg SessionConfig, opts ...Option) (*Session, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	o := buildOptions("amqp091", opts)
	u, _ := url.Parse(cfg.URL) // validated
	tc, err := cfg.tlsConfig(u)
	if err != nil {
		return nil, fault.ErrInvalidConfig.WithMessage(err.Error())
	}
	if cfg.ConnectionName == "" {
		cfg.ConnectionName = o.name
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{
		cfg: cfg, url: u, tls: tc, o: o,
		log:    o.logger.With("session", o.name),
		m:      newSessionMetrics(o.meter, o.name),
		rand:   o.rand,
		ctx:    ctx,
		cancel: cancel,
		done:   make(chan struct{}),
		first:  make(chan error, 1),
		ready:  make(chan struct{}),
		events: make(chan ports.SessionEvent, eventBuffer),
		health: ports.SessionHealth{Status: ports.SessionDown, Detail: "not started", Since: time.Now()},
	}
	if s.rand == nil {
		s.rand = rand.Float64
	}
	return s, nil
}

// Name returns the session's name (WithName).
func (s *Session) Name() string { return s.o.name }

// Start connects and declares the topology. It returns once the first
// attempt succeeded or failed; either way the session keeps reconnecting
// in the background until Close. A failed first attempt is returned
// (classified: wrong credentials are permanent, an unreachable broker
// transient).
func (s *Session) Start(ctx context.Context) error {
	if !s.ensureStarted() {
		return errClosed("amqp091 session")
	}
	select {
	case err := <-s.first:
		s.first <- err // later callers see the same result
		return err
	case <-ctx.Done():
		return classify(ctx.Err(), "amqp091 session start")
	}
}

// ensureStarted launches the supervisor once; false after Close.
func (s *Session) ensureStarted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.startOnce.Do(func() {
		s.started = true
		go s.supervise()
	})
	return true
}

// Reconcile records plan and checks it against the broker: every
// subscription source must be an existing queue and every publisher an
// existing exchange. The check runs again after every reconnect; a miss
// marks the session degraded. Consuming and publishing themselves belong
// to the receivers and senders.
func (s *Session) Reconcile(ctx context.Context, plan ports.SessionPlan) error {
	s.mu.Lock()
	s.plan = &plan
	s.mu.Unlock()
	l, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	if err := checkPlan(l.conn, plan); err != nil {
		s.setHealth(ports.SessionDegraded, true, err.Error())
		return err
	}
	s.setHealth(ports.SessionUp, true, "connected")
	return nil
}

// Health reports the current state without touching the network.
func (s *Session) Health(context.Context) ports.SessionHealth {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.health
}

// Events delivers lifecycle events; the channel is closed by Close. A
// reader that falls behind misses events.
func (s *Session) Events() <-chan ports.SessionEvent { return s.events }

// Close stops reconnecting, closes the connection (the broker requeues
// whatever its consumers left unacknowledged) and closes the event
// channel. It waits for the connection to close within ctx; when ctx ends
// first (a connection attempt still in its handshake), the event channel
// is closed and the health says closed all the same, and the attempt is
// abandoned when it ends.
func (s *Session) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	started := s.started
	s.mu.Unlock()
	s.cancel()
	var err error
	if started {
		select {
		case <-s.done:
		case <-ctx.Done():
			err = classify(ctx.Err(), "amqp091 session close")
		}
	}
	// event and setHealth do nothing once closed is set, so the channel
	// can be closed even while the supervisor is still running.
	s.mu.Lock()
	close(s.events)
	s.health = ports.SessionHealth{Status: ports.SessionDown, Detail: "closed", Since: time.Now()}
	s.mu.Unlock()
	return err
}

// acquire returns the live connection, waiting for one within ctx and
// starting the session on first use.
func (s *Session) acquire(ctx context.Context) (*link, error) {
	for {
		if !s.ensureStarted() {
			return nil, errClosed("amqp091 session")
		}
		s.mu.Lock()
		l, ready := s.cur, s.ready
		s.mu.Unlock()
		if l != nil && !l.conn.IsClosed() {
			return l, nil
		}
		if l != nil {
			// Closed, and the supervisor has not withdrawn it yet.
			ready = l.lost
		}
		select {
		case <-ready:
		case <-s.done:
			return nil, errClosed("amqp091 session")
		case <-ctx.Done():
			return nil, fault.ErrUnavailable.WithMessage("amqp091 session " + s.o.name + ": not connected").Wrap(ctx.Err())
		}
	}
}

// current returns the live connection without waiting, or nil.
func (s *Session) current() *link {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// dial opens one connection and declares the topology on it. reached
// is false when not even the TCP connection could be made: the broker is
// unreachable rather than refusing this client.
func (s *Session) dial() (conn *amqp.Connection, reached bool, err error) {
	props := amqp.NewConnectionProperties()
	props.SetClientConnectionName(s.cfg.ConnectionName)
	timeout := s.cfg.DialTimeout
	cfg := amqp.Config{
		Heartbeat:  s.cfg.Heartbeat,
		Properties: props,
		Dial: func(network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{Timeout: timeout}).DialContext(s.ctx, network, addr)
			if err != nil {
				return nil, err
			}
			reached = true
			// The deadline covers the TLS and AMQP handshakes; the library
			// clears it once the connection is open.
			if err := c.SetDeadline(time.Now().Add(timeout)); err != nil {
				_ = c.Close()
				return nil, err
			}
			if boolOr(s.cfg.CoalesceWrites, true) {
				return newCoalescingConn(c), nil
			}
			return c, nil
		},
	}
	if s.cfg.Vhost != "" {
		cfg.Vhost = s.cfg.Vhost
	}
	cfg.TLSClientConfig = s.tls
	conn, err = amqp.DialConfig(s.cfg.URL, cfg)
	if err != nil {
		return nil, reached, classify(err, "connect to "+redactURL(s.cfg.URL))
	}
	if err := declareTopology(conn, s.cfg.Topology); err != nil {
		_ = conn.Close()
		return nil, true, err
	}
	return conn, true, nil
}
