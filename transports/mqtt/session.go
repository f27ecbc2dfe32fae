package mqtt

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eclipse/paho.golang/autopaho"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Session is one MQTT v5 connection shared by receivers and senders. It
// implements ports.Session. Build it with NewSession, attach receivers and
// senders (NewReceiver, NewSender), then Start it (a receiver's Run starts
// it too). Close it after the runtime stopped.
type Session struct {
	cfg      SessionConfig
	o        options
	m        sessionMetrics
	urls     []*url.URL
	tls      *tls.Config
	clientID string
	acks     *ackState
	backoff  *reconnectBackoff

	mu       sync.Mutex
	started  bool
	closed   bool
	deferred bool         // connects only within lease terms (DeferConnect)
	run      *connRun     // the running connection manager; nil before Start and between terms
	first    *outcome     // the first attempt of the current run, which Start waits for
	server   serverLimits // from the latest CONNACK (MQTT's defaults before one)

	terminal   atomic.Pointer[IngressViolation]
	terminated chan struct{} // closed when a violation ended the session
	closedCh   chan struct{} // closed by Close
	kick       chan struct{} // wakes the reconcile loop

	subs subscriptionSet
	st   status
	ho   handover                  // messages of closed receivers
	conn atomic.Pointer[guardConn] // the current connection, to drop it on release

	overWarned atomic.Uint64 // the connection whose Receive Maximum breach was logged
}

// serverLimits are what the broker announced in its CONNACK.
type serverLimits struct {
	maxPacket int  // 0: no limit
	maxQoS    byte // 2 unless announced
	retain    bool
}

// NewSession checks cfg and builds a session; it does not connect.
func NewSession(cfg SessionConfig, opts ...Option) (*Session, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	o := buildOptions("mqtt-session", opts)
	s := &Session{
		cfg: cfg, o: o, m: newSessionMetrics(o.meter, o.name),
		clientID:   cfg.ClientID,
		acks:       newAckState(cfg.ReceiveMaximum),
		backoff:    newReconnectBackoff(cfg.Reconnect, o.rand),
		first:      newOutcome(),
		terminated: make(chan struct{}),
		closedCh:   make(chan struct{}),
		kick:       make(chan struct{}, 1),
		// What a CONNACK without limits means, until one arrives: read as
		// zero, the QoS limit would downgrade early publishes to QoS 0.
		server: serverLimits{maxQoS: 2, retain: true},
	}
	s.st.init(time.Now())
	for _, raw := range cfg.URLs {
		u, _ := parseBrokerURL(raw) // Validate accepted it
		s.urls = append(s.urls, u)
		if isTLSScheme(u.Scheme) && s.tls == nil {
			t, err := cfg.TLS.build()
			if err != nil {
				return nil, err
			}
			s.tls = t
		}
	}
	if s.clientID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		s.clientID = "gobridge-" + hex.EncodeToString(b[:])
	}
	return s, nil
}

var _ ports.Session = (*Session)(nil)

// ClientID is the client identifier the session connects with.
func (s *Session) ClientID() string { return s.clientID }

// Start connects. It returns once the first connection attempt succeeded
// (nil) or failed (a transient CONNECTION_LOST error); either way the
// session keeps reconnecting in the background until Close. Calling it
// again only waits for that first outcome.
//
// A deferred session (DeferConnect) does not connect in Start: outside a
// lease term Start returns nil at once, within one it waits for the
// term's first attempt.
func (s *Session) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fault.ErrUnavailable.WithMessage("mqtt session is closed")
	}
	if !s.started {
		s.started = true
		if !s.deferred {
			if err := s.launch(nil); err != nil {
				s.mu.Unlock()
				return err
			}
		}
	}
	if s.deferred && s.run == nil {
		s.mu.Unlock()
		return nil
	}
	first := s.first
	s.mu.Unlock()
	return first.wait(ctx)
}

// connRun is the life of one connection manager: the whole life of a
// session that connects at Start, or one lease term of a deferred
// session. Its callbacks check ended, so that a late one from a run that
// was stopped does not touch the next run's state.
type connRun struct {
	cm       *autopaho.ConnectionManager
	stop     context.CancelFunc // ends the connection manager and the reconcile loop
	loopDone chan struct{}
	first    *outcome
	// valid reports whether the lease of the term is still held; nil
	// outside lease terms. No connection attempt starts without it.
	valid func() bool
	ended atomic.Bool
}

// outcome is the result of a run's first connection attempt.
type outcome struct {
	done chan struct{}
	err  error
	once sync.Once
}

func newOutcome() *outcome { return &outcome{done: make(chan struct{})} }

// set records err unless an outcome is recorded already.
func (o *outcome) set(err error) {
	o.once.Do(func() {
		o.err = err
		close(o.done)
	})
}

// wait returns the outcome, or a transient error when ctx ends first.
func (o *outcome) wait(ctx context.Context) error {
	select {
	case <-o.done:
		return o.err
	case <-ctx.Done():
		return fault.ErrConnectionLost.WithMessage("mqtt session: no connection yet").Wrap(ctx.Err())
	}
}

// launch starts a connection manager and the reconcile loop; valid
// guards each connection attempt of a lease term (nil: none). s.mu is
// held.
func (s *Session) launch(valid func() bool) error {
	ctx, cancel := context.WithCancel(context.Background())
	run := &connRun{stop: cancel, loopDone: make(chan struct{}), first: s.first, valid: valid}
	cm, err := autopaho.NewConnection(ctx, s.clientConfig(run))
	if err != nil {
		cancel()
		return fault.ErrInvalidConfig.WithMessage("mqtt session").Wrap(err)
	}
	run.cm = cm
	s.run = run
	go s.reconcileLoop(ctx, run)
	return nil
}

// firstOutcome records the result of the current run's first connection
// attempt.
func (s *Session) firstOutcome(err error) {
	s.mu.Lock()
	f := s.first
	s.mu.Unlock()
	f.set(err)
}

// manager returns the connection manager, or nil before Start and
// between the lease terms of a deferred session.
func (s *Session) manager() *autopaho.ConnectionManager {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run == nil {
		return nil
	}
	return s.run.cm
}

// limits returns what the broker announced on the current connection.
func (s *Session) limits() serverLimits {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.server
}

// Terminal returns the violation that ended the session, or nil.
func (s *Session) Terminal() *IngressViolation { return s.terminal.Load() }

// Terminated is closed when an ingress violation ended the session.
func (s *Session) Terminated() <-chan struct{} { return s.terminated }

// onViolation latches the terminal state before the guard's read fails,
// so that the connection's loss is seen as final and no reconnection
// starts.
func (s *Session) onViolation(v *IngressViolation) {
	if !s.terminal.CompareAndSwap(nil, v) {
		return
	}
	s.m.violations.Add(1)
	s.o.logger.Error("mqtt session ended by the ingress guard", "session", s.o.name, "violation", v.Error())
	// Health and the event first: whoever wakes on terminated sees them.
	s.st.end("ended by the ingress guard: " + v.Error())
	s.st.emit(ports.EventError, v)
	close(s.terminated)
	s.firstOutcome(fault.ErrProtocolError.WithMessage("mqtt session").Wrap(v))
	s.mu.Lock()
	run := s.run
	s.mu.Unlock()
	if run != nil {
		run.stop()
	}
}

// Health reports the session's state without touching the network.
func (s *Session) Health(context.Context) ports.SessionHealth { return s.st.health() }

// Events delivers lifecycle events; the channel is closed by Close. Slow
// readers miss events (the buffer holds 64).
func (s *Session) Events() <-chan ports.SessionEvent { return s.st.events }

// Close disconnects gracefully (a DISCONNECT with reason 0, so the broker
// keeps a session that has an expiry) within ctx and stops every
// goroutine of the session. Messages received but not settled stay
// unacknowledged and come back when the session resumes.
func (s *Session) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.closedCh)
	s.stopHandover()
	run := s.run
	s.run = nil
	s.mu.Unlock()
	s.firstOutcome(fault.ErrUnavailable.WithMessage("mqtt session is closed"))
	var err error
	if run != nil {
		err = run.shutdown(ctx)
	}
	s.st.end("closed")
	s.m.connected.Set(0)
	s.st.close()
	return err
}

// shutdown disconnects gracefully (DISCONNECT reason 0: a session with an
// expiry stays at the broker) within ctx and waits for the run's
// goroutines.
func (r *connRun) shutdown(ctx context.Context) error {
	r.ended.Store(true)
	var err error
	if derr := r.cm.Disconnect(ctx); derr != nil {
		err = fault.ErrTimeout.WithMessage("mqtt session: disconnect").Wrap(derr)
	}
	r.stop()
	select {
	case <-r.loopDone:
	case <-ctx.Done():
		if err == nil {
			err = fault.ErrTimeout.WithMessage("mqtt session: close").Wrap(ctx.Err())
		}
	}
	return err
}

// isClosed reports whether Close was called.
func (s *Session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
