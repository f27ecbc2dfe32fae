package httpapi

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// Server runs the admin and monitor APIs.
type Server struct {
	cfg     Config
	b       Backend
	log     *slog.Logger
	keyset  *keySet
	origins map[string]struct{}

	admin, monitor http.Handler

	// streams bounds the open event streams; quit ends them on Shutdown.
	streams              chan struct{}
	quit                 chan struct{}
	quitOnce             sync.Once
	eventTick, heartbeat time.Duration
	// live builds the streams' snapshots; storeEvery is how long it keeps
	// the figures read from the stores when nothing says they changed.
	live       liveHub
	storeEvery time.Duration

	mu        sync.Mutex
	listeners []*listener
	wg        sync.WaitGroup // one per serving goroutine
}

// listener is one bound socket and its server.
type listener struct {
	name string // "admin", "monitor" or "admin+monitor"
	srv  *http.Server
	addr string
}

// New checks cfg and builds the servers without binding anything. It
// reports every configuration problem at once with code INVALID_CONFIG.
func New(cfg Config, b Backend) (*Server, error) {
	if b == nil {
		return nil, fault.ErrInvalidConfig.WithMessage("http: a backend is required")
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	s := &Server{cfg: cfg, b: b, log: cfg.Logger,
		keyset:    &keySet{now: now, current: newKeyring(cfg.AdminAPIKey, cfg.MonitorAPIKey)},
		streams:   make(chan struct{}, cmp.Or(cfg.MaxEventStreams, DefaultMaxEventStreams)),
		quit:      make(chan struct{}),
		eventTick: defaultEventTick, heartbeat: defaultHeartbeat, storeEvery: defaultStoreEvery}
	if s.log == nil {
		s.log = slog.Default()
	}
	if len(cfg.CORSOrigins) > 0 {
		s.origins = make(map[string]struct{}, len(cfg.CORSOrigins))
		for _, o := range cfg.CORSOrigins {
			s.origins[strings.ToLower(strings.TrimSuffix(o, "/"))] = struct{}{}
		}
	}
	s.admin = withConsole(s.newMux(s.adminEndpoints()))
	s.monitor = s.newMux(s.monitorEndpoints())
	return s, nil
}

// Handlers returns the admin and monitor handlers, for tests and for
// embedding the APIs in another server.
func (s *Server) Handlers() (admin, monitor http.Handler) { return s.admin, s.monitor }

// Start binds the listeners and serves in the background until Shutdown.
// It returns once every listener is bound, or the first bind error (with
// nothing left listening). ctx bounds the binding only; the servers run
// until Shutdown. Start may be called once.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listeners != nil {
		return fault.ErrAlreadyExists.WithMessage("http: server already started")
	}
	var tlsCfg *tls.Config
	if s.cfg.TLSCertFile != "" {
		cert, err := tls.LoadX509KeyPair(s.cfg.TLSCertFile, s.cfg.TLSKeyFile)
		if err != nil {
			return fault.ErrInvalidConfig.WithMessage("http: loading the TLS key pair").Wrap(err)
		}
		tlsCfg = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	}
	type plan struct {
		name, addr string
		h          http.Handler
	}
	var plans []plan
	switch {
	case s.cfg.AdminAddr != "" && s.cfg.AdminAddr == s.cfg.MonitorAddr && !zeroPort(s.cfg.AdminAddr):
		plans = append(plans, plan{"admin+monitor", s.cfg.AdminAddr, combined(s.admin, s.monitor)})
	default:
		if s.cfg.AdminAddr != "" {
			plans = append(plans, plan{"admin", s.cfg.AdminAddr, s.admin})
		}
		if s.cfg.MonitorAddr != "" {
			plans = append(plans, plan{"monitor", s.cfg.MonitorAddr, s.monitor})
		}
	}
	var lc net.ListenConfig
	bound := make([]net.Listener, 0, len(plans))
	for _, p := range plans {
		ln, err := lc.Listen(ctx, "tcp", p.addr)
		if err != nil {
			for _, l := range bound {
				_ = l.Close()
			}
			return fault.ErrUnavailable.WithMessage("http: " + p.name + " listener on " + p.addr).Wrap(err)
		}
		bound = append(bound, ln)
	}
	s.listeners = make([]*listener, 0, len(plans))
	for i, p := range plans {
		ln := bound[i]
		l := &listener{name: p.name, addr: ln.Addr().String(), srv: s.newHTTPServer(p.h)}
		if tlsCfg != nil {
			ln = tls.NewListener(ln, tlsCfg)
		}
		s.listeners = append(s.listeners, l)
		s.wg.Add(1)
		go s.serve(l, ln)
	}
	return nil
}

func (s *Server) newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// serve runs one server until Shutdown; Shutdown waits for it.
func (s *Server) serve(l *listener, ln net.Listener) {
	defer s.wg.Done()
	if err := l.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.log.Error("http api server stopped", "server", l.name, "addr", l.addr, "err", err)
	}
}

// AdminAddr returns the admin listener's bound address, or "" before
// Start or when the admin API is disabled.
func (s *Server) AdminAddr() string { return s.addrOf("admin") }

// MonitorAddr returns the monitor listener's bound address, or "" before
// Start or when the monitor API is disabled.
func (s *Server) MonitorAddr() string { return s.addrOf("monitor") }

func (s *Server) addrOf(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.listeners {
		if strings.Contains(l.name, name) {
			return l.addr
		}
	}
	return ""
}

// Shutdown ends the open event streams, stops accepting connections and
// waits for requests in progress until ctx ends; then it closes the remaining connections. It returns
// ctx's error when the grace period ran out.
func (s *Server) Shutdown(ctx context.Context) error {
	s.quitOnce.Do(func() { close(s.quit) }) // end the event streams
	s.mu.Lock()
	ls := s.listeners
	s.mu.Unlock()
	var errs []error
	var wg sync.WaitGroup
	var emu sync.Mutex
	for _, l := range ls {
		wg.Go(func() {
			if err := l.srv.Shutdown(ctx); err != nil {
				_ = l.srv.Close()
				emu.Lock()
				errs = append(errs, err)
				emu.Unlock()
			}
		})
	}
	wg.Wait()
	s.wg.Wait()
	return errors.Join(errs...)
}

// combined serves the monitor API under /api/v1/monitor/ and /metrics,
// and the admin API elsewhere.
func combined(admin, monitor http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" || strings.HasPrefix(r.URL.Path, "/api/v1/monitor/") {
			monitor.ServeHTTP(w, r)
			return
		}
		admin.ServeHTTP(w, r)
	})
}

// zeroPort reports whether addr asks for an ephemeral port.
func zeroPort(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	return err == nil && port == "0"
}
