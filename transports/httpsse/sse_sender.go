package httpsse

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// SSESender is a ports.Sender that publishes each message as a
// Server-Sent Event on the channel its address names. Clients subscribe
// with GET {path}/{channel}; see SSEConfig for the knobs and Handler for
// mounting the endpoint in another server.
//
// Send returns once the event is appended to the channel's replay log
// (durably, when the log is in a persistent store) and queued for every
// current subscriber; it does not wait for clients to read it. Event ids
// are the log's sequence numbers, so a client resumes with Last-Event-ID
// across restarts; one whose events were trimmed first gets a GapEvent.
// A send to a channel nobody subscribes to is accepted by default (it is
// in the log) or refused with a transient error (see NoSubscriberPolicy).
type SSESender struct {
	cfg SSEConfig
	o   options
	m   sseMetrics
	hub *hub

	keys    keyring
	origins map[string]bool
	anyOrig bool

	handler http.Handler
	srv     *http.Server
	ln      net.Listener
	served  chan error

	closed    atomic.Bool
	closing   chan struct{} // closed by Close; ends every stream
	closeOnce sync.Once
	streams   counter

	stopTrim    context.CancelFunc
	trimStopped chan struct{}
}

var (
	_ ports.Sender = (*SSESender)(nil)
	_ ports.Closer = (*SSESender)(nil)
)

// NewSSESender checks cfg (after applying its defaults), builds the
// sender and, unless Listen is "-", starts serving streams on the listen
// address right away, so clients can subscribe before the first send.
// Close stops the server.
func NewSSESender(cfg SSEConfig, opts ...Option) (*SSESender, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	o := buildOptions("sse", opts)
	log, err := chooseLog(cfg, o)
	if err != nil {
		return nil, err
	}
	s := &SSESender{
		cfg: cfg, o: o, m: newSSEMetrics(o.meter, o.name),
		keys: newKeyring(cfg.BearerKeys), origins: map[string]bool{},
		closing: make(chan struct{}),
	}
	s.hub = newHub(cfg, s.m, log, o.name)
	if ml, own := log.(*memoryLog); own {
		ml.trimmed = s.hub.trimmedKey
	}
	for _, orig := range cfg.AllowOrigins {
		if orig == "*" {
			s.anyOrig = true
		}
		s.origins[orig] = true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+cfg.Path+"/{channel...}", s.serveStream)
	mux.HandleFunc("GET "+cfg.Path, s.serveStream)
	mux.HandleFunc("OPTIONS "+cfg.Path+"/{channel...}", s.preflight)
	mux.HandleFunc("OPTIONS "+cfg.Path, s.preflight)
	if cfg.DemoPage != "" {
		page, err := newDemoPage(cfg)
		if err != nil {
			s.hub.close()
			return nil, fault.ErrInternal.WithMessage("sse sender: cannot build the demo page").Wrap(err)
		}
		mux.Handle(demoPagePattern(cfg.DemoPage), page)
	}
	s.handler = mux
	if cfg.Listen == "-" {
		s.startTrimmer()
		return s, nil
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		s.hub.close()
		return nil, fault.ErrUnavailable.WithMessage("sse sender: cannot listen on " + cfg.Listen).Wrap(err)
	}
	s.startTrimmer()
	s.ln = ln
	s.srv = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: DefaultReadHeaderTimeout,
		IdleTimeout:       DefaultIdleTimeout,
		MaxHeaderBytes:    DefaultMaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(o.logger.Handler(), slog.LevelDebug),
	}
	s.served = make(chan error, 1)
	go func() { s.served <- s.srv.Serve(ln) }()
	o.logger.Info("sse egress listening", "sender", o.name, "addr", ln.Addr().String(), "path", cfg.Path)
	if cfg.DemoPage != "" {
		o.logger.Info("sse demo page", "sender", o.name, "url", "http://"+ln.Addr().String()+cfg.DemoPage)
	}
	return s, nil
}

// Handler returns the subscription endpoint (and the demo page, when
// DemoPage is set), for mounting under Path in a server of the caller's
// own (with Listen "-").
func (s *SSESender) Handler() http.Handler { return s.handler }

// Addr returns the address the sender listens on, or "" with Listen "-".
func (s *SSESender) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Config returns the configuration in use, defaults applied.
func (s *SSESender) Config() SSEConfig { return s.cfg }

// Send publishes msg on the channel msg.Address names (DefaultChannel when
// empty). The event data is the JSON envelope of MarshalEnvelope.
func (s *SSESender) Send(ctx context.Context, msg ports.OutboundMessage) error {
	if err := ctx.Err(); err != nil {
		return fault.ErrUnavailable.WithMessage("sse send cancelled").Wrap(err)
	}
	if s.closed.Load() {
		return errHubClosed
	}
	if msg.Envelope == nil {
		return fault.ErrInvalidPayload.WithMessage("sse send: nil envelope")
	}
	name := msg.Address
	if name == "" {
		name = s.cfg.DefaultChannel
	}
	if name == "" {
		return fault.ErrInvalidConfig.WithMessage("sse send: the message has no address and the sender no default_channel")
	}
	if err := checkChannel(name); err != nil {
		return fault.ErrInvalidConfig.WithMessage("sse send: " + err.Error())
	}
	if !s.cfg.channelAllowed(name) {
		return fault.ErrInvalidConfig.WithMessage("sse send: channel " + strconv.Quote(name) + " is not matched by allowed_channels")
	}
	data, err := MarshalEnvelope(msg.Envelope)
	if err != nil {
		return fault.ErrInvalidPayload.WithMessage("sse send: cannot encode the envelope").Wrap(err)
	}
	return s.hub.publish(ctx, name, data)
}

// Close ends every stream, stops the server and makes further sends fail
// with a transient UNAVAILABLE error. It waits, within ctx, for the
// streams to finish.
func (s *SSESender) Close(ctx context.Context) error {
	var err error
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		close(s.closing)
		s.hub.close()
		if s.srv != nil {
			if serr := s.srv.Shutdown(ctx); serr != nil {
				_ = s.srv.Close()
				err = serr
			}
			if serr := <-s.served; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
				err = serr
			}
		}
		s.streams.wait(ctx.Done())
		s.stopTrim()
		select {
		case <-s.trimStopped:
		case <-ctx.Done():
		}
	})
	return err
}

// startTrimmer starts the goroutine that keeps the replay logs within
// their bounds; Close stops it.
func (s *SSESender) startTrimmer() {
	ctx, cancel := context.WithCancel(context.Background())
	s.stopTrim, s.trimStopped = cancel, make(chan struct{})
	go func() {
		defer close(s.trimStopped)
		s.runTrimmer(ctx)
	}()
}

// chooseLog returns the replay log cfg.ReplayLog asks for: the store's
// log given with WithStreamLog, or a memory log of the sender's own,
// bounded by memory_log_max_bytes.
func chooseLog(cfg SSEConfig, o options) (ports.StreamLog, error) {
	switch {
	case cfg.ReplayLog == ReplayLogMemory:
		return newMemoryLog(cfg.MemoryLogMaxBytes), nil
	case o.log != nil:
		return o.log, nil
	case cfg.ReplayLog == ReplayLogStore:
		return nil, fault.ErrInvalidConfig.WithMessage("sse sender " + o.name +
			": replay_log: store needs a store that can hold replay logs (configure a sqlite or memory store), or set replay_log: memory")
	}
	return newMemoryLog(cfg.MemoryLogMaxBytes), nil
}

// retryField is the stream's opening: the reconnection delay and a
// comment that lets the client see the stream is open.
func (s *SSESender) retryField() []byte {
	ms := s.cfg.ClientRetry / time.Millisecond
	return []byte("retry: " + itoa(int64(ms)) + "\n: connected\n\n")
}
