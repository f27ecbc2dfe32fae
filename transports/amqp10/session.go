package amqp10

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Session owns one AMQP 1.0 connection and keeps it up: after Start, a
// supervisor redials with bounded, jittered backoff whenever the
// connection drops. Receivers and senders ask it for the current
// connection and open their own AMQP sessions and links on it.
type Session struct {
	cfg  SessionConfig
	opts options
	log  *slog.Logger
	host string      // the URL's host, for messages
	tls  *tls.Config // nil for amqp://
	m    sessionMetrics

	mu      sync.Mutex
	conn    *amqp.Conn
	up      chan struct{} // closed while conn is usable; replaced when it drops
	health  ports.SessionHealth
	closed  bool
	stop    context.CancelFunc
	done    chan struct{}
	events  chan ports.SessionEvent
	started bool
}

// NewSession validates cfg (after WithDefaults) and returns an unstarted
// Session.
func NewSession(cfg SessionConfig, opts ...Option) (*Session, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := buildOptions("amqp10", opts)
	if cfg.ContainerID == "" {
		cfg.ContainerID = o.name
	}
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fault.ErrInvalidConfig.WithMessage("url: cannot parse").Wrap(err)
	}
	var tc *tls.Config
	if u.Scheme == "amqps" {
		if tc, err = cfg.TLS.build(u.Hostname()); err != nil {
			return nil, err
		}
	}
	return &Session{
		cfg: cfg, opts: o, log: o.logger.With("session", o.name),
		host: u.Host, tls: tc, m: newSessionMetrics(o.meter, o.name),
		up:     make(chan struct{}),
		events: make(chan ports.SessionEvent, 16),
		health: ports.SessionHealth{Status: ports.SessionDown, Detail: "not started", Since: time.Now()},
	}, nil
}

// Start dials once and returns that attempt's outcome; whatever it is, a
// supervisor keeps the connection up afterwards until Close.
func (s *Session) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return fault.ErrInvalidConfig.WithMessage("amqp10: session already started or closed")
	}
	s.started = true
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop, s.done = stop, make(chan struct{})
	s.mu.Unlock()

	conn, err := s.dial(ctx)
	if err == nil {
		s.setConn(conn)
	} else {
		s.setDown(err)
	}
	go s.supervise(runCtx, conn)
	return err
}

// dial makes one connection attempt bounded by DialTimeout.
func (s *Session) dial(ctx context.Context) (*amqp.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.DialTimeout)
	defer cancel()
	conn, err := amqp.Dial(ctx, s.cfg.URL, s.connOptions())
	if err != nil {
		if terr := tlsVerifyError(s.host, err); terr != nil {
			return nil, terr
		}
		if serr := saslRefused(s.cfg.SASL, s.cfg.URL, err); serr != nil {
			return nil, serr
		}
		return nil, classifyConnErr(fmt.Errorf("amqp10: dial %s: %w", s.cfg.URL, err))
	}
	return conn, nil
}

// connOptions are go-amqp's options for one connection attempt.
func (s *Session) connOptions() *amqp.ConnOptions {
	co := &amqp.ConnOptions{ContainerID: s.cfg.ContainerID, IdleTimeout: s.cfg.IdleTimeout, TLSConfig: s.tls}
	switch s.cfg.SASL {
	case SASLPlain:
		co.SASLType = amqp.SASLTypePlain(s.cfg.Username, s.cfg.Password)
	case SASLAnonymous:
		co.SASLType = amqp.SASLTypeAnonymous()
	case SASLExternal:
		// An empty response: the peer takes the identity from the
		// client certificate.
		co.SASLType = amqp.SASLTypeExternal("")
	}
	return co
}

// supervise waits for the connection to drop and redials it.
func (s *Session) supervise(ctx context.Context, conn *amqp.Conn) {
	defer close(s.done)
	for attempt := 0; ; {
		if conn != nil {
			select {
			case <-conn.Done():
				s.setDown(classifyConnErr(fmt.Errorf("amqp10: connection lost: %w", conn.Err())))
			case <-ctx.Done():
				s.closeConn(conn)
				return
			}
			attempt = 0
		}
		s.emit(ports.SessionEvent{Kind: ports.EventReconnecting, At: time.Now()})
		t := time.NewTimer(s.cfg.Reconnect.delay(attempt, s.opts.rand()))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		attempt++
		s.m.reconnects.Add(1)
		c, err := s.dial(ctx)
		if err != nil {
			s.log.Warn("amqp10: reconnect failed", "attempt", attempt, "err", err)
			s.emit(ports.SessionEvent{Kind: ports.EventError, At: time.Now(), Err: err})
			conn = nil
			continue
		}
		conn = c
		s.setConn(conn)
	}
}

func (s *Session) closeConn(conn *amqp.Conn) {
	done := make(chan struct{})
	go func() { defer close(done); _ = conn.Close() }()
	t := time.NewTimer(s.cfg.CloseTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		s.log.Warn("amqp10: closing the connection timed out", "after", s.cfg.CloseTimeout)
	}
}

func (s *Session) setConn(conn *amqp.Conn) {
	s.mu.Lock()
	s.conn = conn
	close(s.up)
	s.health = ports.SessionHealth{Status: ports.SessionUp, Connected: true, Subscribed: true, Detail: "connected", Since: time.Now()}
	s.mu.Unlock()
	s.m.up.Set(1)
	s.log.Info("amqp10: connected", "url", s.cfg.URL)
	s.emit(ports.SessionEvent{Kind: ports.EventConnected, At: time.Now()})
}

func (s *Session) setDown(err error) {
	s.mu.Lock()
	if s.conn != nil {
		s.conn = nil
		s.up = make(chan struct{})
	}
	s.health = ports.SessionHealth{Status: ports.SessionDown, Detail: "disconnected: " + string(fault.CodeOf(err)), Since: time.Now()}
	s.mu.Unlock()
	s.m.up.Set(0)
	s.emit(ports.SessionEvent{Kind: ports.EventDisconnected, At: time.Now(), Err: err})
}

func (s *Session) emit(ev ports.SessionEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	select {
	case s.events <- ev:
	default:
	}
}

// connection returns the current connection, waiting for one while the
// session reconnects, until ctx ends.
func (s *Session) connection(ctx context.Context) (*amqp.Conn, error) {
	for {
		s.mu.Lock()
		conn, up, closed := s.conn, s.up, s.closed
		s.mu.Unlock()
		if closed {
			return nil, fault.ErrUnavailable.WithMessage("amqp10: session closed")
		}
		if conn != nil {
			select {
			case <-conn.Done():
				// The supervisor will notice; wait for the next one.
			default:
				return conn, nil
			}
		}
		select {
		case <-up:
		case <-ctx.Done():
			return nil, fault.ErrUnavailable.WithMessage("amqp10: not connected").Wrap(ctx.Err())
		}
	}
}

// openSession opens an AMQP session on the current connection.
// The connection comes along so that the caller can tell when the
// session died with it.
func (s *Session) openSession(ctx context.Context) (*amqp.Session, *amqp.Conn, error) {
	conn, err := s.connection(ctx)
	if err != nil {
		return nil, nil, err
	}
	as, err := conn.NewSession(ctx, nil)
	if err != nil {
		return nil, nil, classifyConnErr(fmt.Errorf("amqp10: begin session: %w", err))
	}
	return as, conn, nil
}

// closeSession ends an AMQP session within CloseTimeout. The peer then
// takes back whatever its links left unsettled. Closing a session rather
// than each link avoids RabbitMQ's plugin, which may never answer a
// single link's detach.
func (s *Session) closeSession(as *amqp.Session) {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.CloseTimeout)
	defer cancel()
	if err := as.Close(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		s.log.Debug("amqp10: closing a session", "err", err)
	}
}

// Reconcile accepts any plan: links are attached by receivers and senders
// themselves, on demand.
func (s *Session) Reconcile(context.Context, ports.SessionPlan) error { return nil }

// Health reports the connection state without blocking on the network.
func (s *Session) Health(context.Context) ports.SessionHealth {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.health
}

// Events delivers lifecycle events; Close closes the channel.
func (s *Session) Events() <-chan ports.SessionEvent { return s.events }

// Close stops the supervisor and closes the connection within ctx.
func (s *Session) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	stop, done := s.stop, s.done
	close(s.events)
	s.mu.Unlock()
	if stop == nil {
		return nil
	}
	stop()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fault.ErrTimeout.WithMessage("amqp10: closing the session").Wrap(ctx.Err())
	}
}

// dropConnection closes the current connection as a network failure
// would; the supervisor reconnects. Tests use it.
func (s *Session) dropConnection() {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn != nil {
		_ = conn.Close()
	}
}
