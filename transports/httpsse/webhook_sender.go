package httpsse

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// maxDrain bounds how much of a response body is read so the connection
// can be reused; a longer body costs the connection instead.
const maxDrain = 64 << 10

var errWebhookClosed = fault.ErrUnavailable.WithMessage("webhook sender is closed")

// WebhookSender is a ports.BatchSender that POSTs messages to HTTP
// endpoints over one shared, kept-alive connection pool.
type WebhookSender struct {
	cfg    WebhookConfig
	o      options
	m      webhookMetrics
	base   *url.URL // nil without a configured URL
	client *http.Client
	owned  *http.Transport // the transport to close, when built here
	secret []byte
	closed atomic.Bool
}

var (
	_ ports.BatchSender = (*WebhookSender)(nil)
	_ ports.Closer      = (*WebhookSender)(nil)
)

// NewWebhookSender checks cfg (after applying its defaults) and builds the
// sender with an http.Client tuned for connection reuse. Redirects are
// not followed.
func NewWebhookSender(cfg WebhookConfig, opts ...Option) (*WebhookSender, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	o := buildOptions("webhook", opts)
	s := &WebhookSender{cfg: cfg, o: o, m: newWebhookMetrics(o.meter, o.name), client: o.client}
	if cfg.URL != "" {
		s.base, _ = parseTarget(cfg.URL) // Validate checked it
	}
	if cfg.SigningSecret != "" {
		s.secret = []byte(cfg.SigningSecret)
	}
	if s.client == nil {
		s.owned = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          max(100, cfg.MaxIdleConnsPerHost),
			MaxIdleConnsPerHost:   cfg.MaxIdleConnsPerHost,
			MaxConnsPerHost:       cfg.MaxConnsPerHost,
			IdleConnTimeout:       cfg.IdleConnTimeout,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		}
		s.client = &http.Client{
			Transport: s.owned,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
	}
	return s, nil
}

// Config returns the configuration in use, defaults applied.
func (s *WebhookSender) Config() WebhookConfig { return s.cfg }

// Send posts one message to the URL its address names (see
// WebhookConfig.URL) and classifies the answer (see the package doc).
func (s *WebhookSender) Send(ctx context.Context, msg ports.OutboundMessage) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if msg.Envelope == nil {
		return fault.ErrInvalidPayload.WithMessage("webhook send: nil envelope")
	}
	target, err := s.target(msg.Address)
	if err != nil {
		return err
	}
	env := msg.Envelope
	var body []byte
	contentType := "application/json"
	if s.cfg.Body == BodyRaw {
		body = env.PayloadView() // read-only: the request only reads it
		contentType = s.cfg.ContentType
		if ct, ok := env.HeaderString(ContentTypeHeader); ok && validHeaderValue(ct) {
			contentType = ct
		}
	} else if body, err = MarshalEnvelope(env); err != nil {
		return fault.ErrInvalidPayload.WithMessage("webhook send: cannot encode the envelope").Wrap(err)
	}
	return s.post(ctx, target, body, contentType, func(h http.Header) { s.messageHeaders(h, env) })
}

func (s *WebhookSender) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fault.ErrUnavailable.WithMessage("webhook send cancelled").Wrap(err)
	}
	if s.closed.Load() {
		return errWebhookClosed
	}
	return nil
}

// target resolves a dispatch address to the URL to post to.
func (s *WebhookSender) target(addr string) (*url.URL, error) {
	if addr == "" {
		if s.base == nil {
			return nil, fault.ErrInvalidConfig.WithMessage("webhook send: the message has no address and the sender no url")
		}
		return s.base, nil
	}
	if strings.Contains(addr, "://") {
		u, err := parseTarget(addr)
		if err != nil {
			return nil, fault.ErrInvalidConfig.WithMessage("webhook address: " + err.Error())
		}
		return u, nil
	}
	if s.base == nil {
		return nil, fault.ErrInvalidConfig.WithMessage("webhook address " + redact(addr) + " is relative and the sender has no url")
	}
	ref, err := url.Parse(addr)
	if err != nil {
		return nil, fault.ErrInvalidConfig.WithMessage("webhook address is not a URL reference").Wrap(err)
	}
	return s.base.ResolveReference(ref), nil
}

// messageHeaders sets the per-message request headers: first the ones
// taken from envelope headers (raw mode, header_map), then the ones the
// sender derives from the envelope's fields, which replace any envelope
// header of the same name. post writes the configured headers after them.
func (s *WebhookSender) messageHeaders(h http.Header, env *messaging.Envelope) {
	if s.cfg.Body == BodyRaw {
		for k, v := range env.Headers {
			if strings.EqualFold(k, ContentTypeHeader) {
				continue
			}
			setHeader(h, s.cfg.HeaderPrefix+k, v)
		}
	} else {
		for _, k := range []string{messaging.HeaderTraceParent, messaging.HeaderTraceState} {
			if v, ok := env.Headers[k]; ok {
				setHeader(h, k, v)
			}
		}
	}
	for from, to := range s.cfg.HeaderMap {
		if v, ok := env.Headers[from]; ok {
			setHeader(h, to, v)
		}
	}
	h.Del(HeaderIdempotencyKey)
	if env.ID != "" && validHeaderValue(env.ID) {
		h.Set(HeaderIdempotencyKey, env.ID)
	}
	if s.cfg.Body == BodyRaw {
		h.Del(SubjectHeader)
		if validHeaderValue(env.Subject) {
			h.Set(SubjectHeader, env.Subject)
		}
	}
}

// setHeader sets an HTTP header from an envelope header, skipping names
// that are not tokens or describe the connection, and unsafe values.
func setHeader(h http.Header, name string, v any) {
	if !validHeaderName(name) || hopHeaders[strings.ToLower(name)] {
		return
	}
	if text := headerText(v); validHeaderValue(text) {
		h[http.CanonicalHeaderKey(name)] = []string{text}
	}
}

// post sends one request and classifies the outcome.
func (s *WebhookSender) post(ctx context.Context, target *url.URL, body []byte, contentType string, headers func(http.Header)) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target.String(), bytes.NewReader(body))
	if err != nil {
		return fault.ErrInvalidConfig.WithMessage("webhook request for " + redact(target.String())).Wrap(err)
	}
	h := req.Header
	if headers != nil {
		headers(h)
	}
	// Configured headers win over anything a message carries.
	for k, v := range s.cfg.Headers {
		h.Set(k, v)
	}
	h.Set("Content-Type", contentType)
	h.Set("User-Agent", "gobridge-webhook")
	if s.secret != nil {
		h.Set(s.cfg.SignatureHeader, Sign(s.secret, body))
	}
	start := time.Now()
	resp, err := s.client.Do(req)
	s.m.duration.Observe(time.Since(start).Seconds())
	if err != nil {
		s.m.outcome["transient"].Add(1)
		return classifyTransport(ctx, target, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	_ = resp.Body.Close()
	err = classifyStatus(resp.StatusCode, resp.Header, time.Now(), s.cfg.MaxRetryAfter)
	switch {
	case err == nil:
		s.m.outcome["ok"].Add(1)
	case fault.IsRecoverable(err):
		s.m.outcome["transient"].Add(1)
	default:
		s.m.outcome["permanent"].Add(1)
	}
	return err
}

// Sign returns the signature header value for body: "sha256=" followed by
// the lower-case hex HMAC-SHA256 of body keyed with secret. A receiver
// recomputes it over the raw body and compares with hmac.Equal.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Close makes further sends fail with a transient UNAVAILABLE error and
// closes idle connections. Requests in progress finish on their own.
func (s *WebhookSender) Close(context.Context) error {
	s.closed.Store(true)
	if s.owned != nil {
		s.owned.CloseIdleConnections()
	}
	return nil
}
