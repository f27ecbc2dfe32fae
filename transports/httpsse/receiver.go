package httpsse

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Receiver is the HTTP ingress: a ports.Receiver whose Run serves POST
// requests and hands each one to the route as a delivery, answering once
// the route has settled it.
//
// It reports Retry and RedeliversUnsettled: a retried or unsettled
// delivery is answered 503 (or the connection drops, if the bridge dies),
// and the caller, which still holds the message, sends it again. That
// holds for callers that retry on 503 and on connection errors; callers
// should reuse the message id (or Idempotency-Key) so the retry is
// recognised as the same message.
type Receiver struct {
	cfg     ReceiverConfig
	o       options
	m       receiverMetrics
	keys    keyring
	forward []string // request headers copied into the envelope
	grace   time.Duration
	running atomic.Bool
	addr    atomic.Pointer[string]
}

var (
	_ ports.Receiver           = (*Receiver)(nil)
	_ ports.CapabilityReporter = (*Receiver)(nil)
)

// NewReceiver checks cfg (after applying its defaults) and builds a
// receiver. It does not listen until Run.
func NewReceiver(cfg ReceiverConfig, opts ...Option) (*Receiver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	o := buildOptions("http", opts)
	return &Receiver{
		cfg: cfg, o: o, m: newReceiverMetrics(o.meter, o.name), keys: newKeyring(cfg.BearerKeys),
		grace:   defaultSettleGrace,
		forward: append([]string{messaging.HeaderTraceParent, messaging.HeaderTraceState}, cfg.ForwardHeaders...),
	}, nil
}

// Capabilities reports that callers retry on 503, so both a retried and an
// unsettled delivery come back from the source.
func (r *Receiver) Capabilities() ports.ReceiverCapabilities {
	return ports.ReceiverCapabilities{Retry: true, RedeliversUnsettled: true, CallerWaits: true}
}

// Config returns the configuration in use, defaults applied.
func (r *Receiver) Config() ReceiverConfig { return r.cfg }

// Addr returns the address Run is listening on, or "" while it is not.
// It is useful with a Listen address whose port is 0.
func (r *Receiver) Addr() string {
	if p := r.addr.Load(); p != nil {
		return *p
	}
	return ""
}

// Run listens on the configured address and serves until ctx ends. It
// then stops accepting connections and answers new requests on open
// connections with 503, lets the requests in flight finish for up to
// ShutdownTimeout (the route keeps working on them meanwhile, and a
// request still waiting for the route to take it may yet be taken),
// abandons the rest (their callers get 503) and returns nil. It returns an error when it cannot listen or the server
// fails. A Receiver runs once at a time; it may run again after Run
// returned.
func (r *Receiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	if !r.running.CompareAndSwap(false, true) {
		return fault.ErrInvalidConfig.WithMessage("http receiver: Run is already running")
	}
	defer r.running.Store(false)
	if err := ctx.Err(); err != nil {
		return err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", r.cfg.Listen)
	if err != nil {
		return fault.ErrUnavailable.WithMessage("http receiver: cannot listen on " + r.cfg.Listen).Wrap(err)
	}
	addr := ln.Addr().String()
	r.addr.Store(&addr)
	defer r.addr.Store(nil)

	rs := newRunState(ctx, emit)
	srv := &http.Server{
		Handler:           r.mux(rs),
		ReadHeaderTimeout: r.cfg.ReadHeaderTimeout,
		ReadTimeout:       r.cfg.ReadTimeout,
		WriteTimeout:      r.cfg.WriteTimeout,
		IdleTimeout:       r.cfg.IdleTimeout,
		MaxHeaderBytes:    r.cfg.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(r.o.logger.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return rs.hard },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	r.o.logger.Info("http ingress listening", "receiver", r.o.name, "addr", addr, "paths", r.cfg.Paths)

	var runErr error
	select {
	case <-ctx.Done():
	case err := <-served:
		served <- err
		runErr = fault.ErrConnectionLost.WithMessage("http receiver: server stopped").Wrap(err)
	}
	r.shutdown(srv, rs)
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) && runErr == nil {
		runErr = fault.ErrConnectionLost.WithMessage("http receiver: server stopped").Wrap(err)
	}
	return runErr
}

// shutdown stops the server: graceful for ShutdownTimeout, then the
// requests still waiting are abandoned and answered within the settle
// grace, and finally every connection is closed. No emit is in progress
// or can start once it returns.
func (r *Receiver) shutdown(srv *http.Server, rs *runState) {
	sctx, cancel := context.WithTimeout(context.Background(), r.cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		r.o.logger.Warn("http ingress: shutdown timeout reached; abandoning in-flight requests",
			"receiver", r.o.name, "timeout", r.cfg.ShutdownTimeout)
		rs.hardStop()
		// Shutdown again waits until the abandoned requests have been
		// answered and their responses written.
		actx, acancel := context.WithTimeout(context.Background(), r.grace+time.Second)
		_ = srv.Shutdown(actx)
		acancel()
		_ = srv.Close()
	}
	rs.hardStop()
	rs.closeEmits()
}

// runState is what the handlers of one Run share.
type runState struct {
	ctx  context.Context // Run's: once it ends, new requests are refused
	emit ports.EmitFunc
	// hard is the parent of every request context. hardStop cancels it
	// when the graceful shutdown timed out, which abandons the requests
	// still in progress and ends their hand-overs.
	hard     context.Context
	hardStop context.CancelFunc

	mu          sync.Mutex
	emitsClosed bool
	emitting    counter
}

func newRunState(ctx context.Context, emit ports.EmitFunc) *runState {
	hard, hardStop := context.WithCancel(context.WithoutCancel(ctx))
	return &runState{ctx: ctx, emit: emit, hard: hard, hardStop: hardStop}
}

// stopped reports whether the receiver stopped waiting for outcomes.
func (rs *runState) stopped() bool { return rs.hard.Err() != nil }

// emitDelivery hands d to the route unless Run is finishing.
func (rs *runState) emitDelivery(ctx context.Context, d ports.Delivery) error {
	rs.mu.Lock()
	if rs.emitsClosed {
		rs.mu.Unlock()
		return fault.ErrUnavailable.WithMessage("http receiver is stopping")
	}
	rs.emitting.add(1)
	rs.mu.Unlock()
	defer rs.emitting.add(-1)
	return rs.emit(ctx, d)
}

// closeEmits refuses further emits and waits for those in progress, which
// end promptly because their contexts derive from the cancelled hard
// stop context.
func (rs *runState) closeEmits() {
	rs.mu.Lock()
	rs.emitsClosed = true
	rs.mu.Unlock()
	rs.emitting.wait(nil)
}

// counter is a count that can be waited on to reach zero; unlike a
// sync.WaitGroup it may grow again while someone waits.
type counter struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n drops to zero; nil while nobody waits
}

func (c *counter) add(d int) {
	c.mu.Lock()
	c.n += d
	if c.n == 0 && c.zero != nil {
		close(c.zero)
		c.zero = nil
	}
	c.mu.Unlock()
}

// wait blocks until the count is zero or abort closes.
func (c *counter) wait(abort <-chan struct{}) {
	c.mu.Lock()
	if c.n == 0 {
		c.mu.Unlock()
		return
	}
	if c.zero == nil {
		c.zero = make(chan struct{})
	}
	z := c.zero
	c.mu.Unlock()
	select {
	case <-z:
	case <-abort:
	}
}
