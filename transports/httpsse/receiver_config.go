package httpsse

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// BodyMode says how the ingress reads a request body.
type BodyMode string

// Body modes.
const (
	// BodyEnvelope reads a JSON envelope (see ParseBody).
	BodyEnvelope BodyMode = "envelope"
	// BodyRaw takes the whole body as the payload; the subject comes from
	// the gobridge.subject header or the path's {subject} wildcard.
	BodyRaw BodyMode = "raw"
)

// Receiver defaults.
const (
	DefaultListen            = ":8080"
	DefaultIngressPath       = "/publish"
	DefaultMaxBodyBytes      = 1 << 20
	DefaultMaxHeaderBytes    = 64 << 10
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 60 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultHoldTimeout       = 50 * time.Second
	DefaultShutdownTimeout   = 30 * time.Second
	DefaultHealthPath        = "/healthz"
)

// ReceiverConfig is the declarative setup of the HTTP ingress, as read
// from the settings of a `type: http` receiver entry. Zero fields take
// their defaults (see WithDefaults).
type ReceiverConfig struct {
	// Listen is the TCP address to serve on (":8080").
	Listen string `yaml:"listen" json:"listen"`
	// Paths are the URL paths that accept POST (["/publish",
	// "/publish/{subject...}"]). A path may hold one {subject} or
	// {subject...} wildcard, which supplies the subject when neither the
	// body nor the gobridge.subject header does.
	Paths []string `yaml:"paths" json:"paths"`
	// Body is envelope (default) or raw.
	Body BodyMode `yaml:"body" json:"body"`
	// ContentTypes lists the accepted media types; "type/*" matches a
	// whole type. Default: application/json for envelope bodies, any for
	// raw bodies. Other types get 415.
	ContentTypes []string `yaml:"content_types" json:"content_types"`
	// MaxBodyBytes bounds a request body (1 MiB); larger bodies get 413.
	MaxBodyBytes int64 `yaml:"max_body_bytes" json:"max_body_bytes"`
	// MaxHeaderBytes bounds the request header block (64 KiB).
	MaxHeaderBytes int `yaml:"max_header_bytes" json:"max_header_bytes"`
	// BearerKeys, when not empty, makes every POST present
	// "Authorization: Bearer <key>" with one of these keys; others get
	// 401. Several keys allow rotation.
	BearerKeys []string `yaml:"bearer_keys" json:"bearer_keys" secret:"true"`
	// AllowOrigins lists the web origins whose pages may post from a
	// browser across origins (CORS); "*" allows any. A browser request
	// from any other origin gets 403, and without bearer keys so does a
	// browser post with a form-compatible Content-Type (see
	// ingress_origin.go).
	AllowOrigins []string `yaml:"allow_origins" json:"allow_origins"`
	// ForwardHeaders names HTTP request headers copied into the envelope
	// headers under their lower-case names (none). traceparent,
	// tracestate and Idempotency-Key are always carried.
	ForwardHeaders []string `yaml:"forward_headers" json:"forward_headers"`
	// HeaderPrefix, when set, copies every request header whose name
	// starts with it into the envelope headers, the prefix removed and the
	// rest lower-cased ("X-Meta-Tenant: a" becomes tenant: a). It mirrors
	// the webhook sender's header_prefix.
	HeaderPrefix string `yaml:"header_prefix" json:"header_prefix"`
	// AcceptedStatus is the status of a message the route accepted: 200
	// (default) suits direct_hold, where acceptance means delivered; 202
	// suits shared_outbox, where it means persisted for later delivery.
	AcceptedStatus int `yaml:"accepted_status" json:"accepted_status"`
	// ExposeErrors adds the error message of permanent and transient
	// failures to responses. Off by default because those messages
	// describe the bridge's destinations; rejections always explain
	// themselves.
	ExposeErrors bool `yaml:"expose_errors" json:"expose_errors"`
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout are the
	// http.Server timeouts (10s, 30s, 60s, 120s).
	ReadHeaderTimeout time.Duration `yaml:"read_header_timeout" json:"read_header_timeout"`
	ReadTimeout       time.Duration `yaml:"read_timeout" json:"read_timeout"`
	WriteTimeout      time.Duration `yaml:"write_timeout" json:"write_timeout"`
	IdleTimeout       time.Duration `yaml:"idle_timeout" json:"idle_timeout"`
	// HoldTimeout bounds how long a request waits for its outcome (50s);
	// past it the delivery is abandoned and the caller gets 503. It must
	// be shorter than WriteTimeout and should exceed the route's
	// send_timeout.
	HoldTimeout time.Duration `yaml:"hold_timeout" json:"hold_timeout"`
	// ShutdownTimeout bounds how long Run lets in-flight requests finish
	// once its context ends (30s); the rest are abandoned with 503.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout" json:"shutdown_timeout"`
	// HealthPath serves GET health checks without authentication
	// ("/healthz"); "-" disables it.
	HealthPath string `yaml:"health_path" json:"health_path"`
}

// DefaultReceiverConfig returns a ReceiverConfig with every default filled
// in.
func DefaultReceiverConfig() ReceiverConfig { return ReceiverConfig{}.WithDefaults() }

// WithDefaults returns c with every zero field replaced by its default.
func (c ReceiverConfig) WithDefaults() ReceiverConfig {
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if len(c.Paths) == 0 {
		c.Paths = []string{DefaultIngressPath, DefaultIngressPath + "/{subject...}"}
	}
	if c.Body == "" {
		c.Body = BodyEnvelope
	}
	if len(c.ContentTypes) == 0 && c.Body == BodyEnvelope {
		c.ContentTypes = []string{"application/json"}
	}
	setDefault(&c.MaxBodyBytes, DefaultMaxBodyBytes)
	setDefault(&c.MaxHeaderBytes, DefaultMaxHeaderBytes)
	setDefault(&c.AcceptedStatus, http.StatusOK)
	setDefault(&c.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	setDefault(&c.ReadTimeout, DefaultReadTimeout)
	setDefault(&c.WriteTimeout, DefaultWriteTimeout)
	setDefault(&c.IdleTimeout, DefaultIdleTimeout)
	setDefault(&c.HoldTimeout, DefaultHoldTimeout)
	setDefault(&c.ShutdownTimeout, DefaultShutdownTimeout)
	if c.HealthPath == "" {
		c.HealthPath = DefaultHealthPath
	}
	return c
}

func setDefault[T int | int64 | time.Duration](p *T, def T) {
	if *p == 0 {
		*p = def
	}
}

// problems collects configuration errors, each a fault.ErrInvalidConfig
// whose message starts with the field name.
type problems []error

func (ps *problems) add(field, format string, args ...any) {
	*ps = append(*ps, fault.ErrInvalidConfig.WithMessage(field+": "+fmt.Sprintf(format, args...)))
}

func (ps problems) err() error { return errors.Join(ps...) }

// Validate reports every problem with c, after applying the defaults,
// each naming its field, joined into one error.
func (c ReceiverConfig) Validate() error {
	c = c.WithDefaults()
	var ps problems
	seen := map[string]bool{}
	for i, p := range c.Paths {
		field := fmt.Sprintf("paths[%d]", i)
		if err := checkPath(p, "subject"); err != nil {
			ps.add(field, "%v", err)
		} else if seen[p] {
			ps.add(field, "%q is listed twice", p)
		}
		seen[p] = true
	}
	switch c.Body {
	case BodyEnvelope, BodyRaw:
	default:
		ps.add("body", "%q is invalid; must be envelope or raw", c.Body)
	}
	for i, ct := range c.ContentTypes {
		if _, _, err := mime.ParseMediaType(ct); err != nil || strings.Contains(ct, ";") || !strings.Contains(ct, "/") {
			ps.add(fmt.Sprintf("content_types[%d]", i), "%q is not a media type such as application/json or text/*", ct)
		}
	}
	checkPositive(&ps, "max_body_bytes", c.MaxBodyBytes)
	checkPositive(&ps, "max_header_bytes", int64(c.MaxHeaderBytes))
	checkBearerKeys(&ps, c.BearerKeys)
	checkOrigins(&ps, c.AllowOrigins)
	for i, h := range c.ForwardHeaders {
		if !validHeaderName(h) {
			ps.add(fmt.Sprintf("forward_headers[%d]", i), "%q is not an HTTP header name", h)
		}
	}
	if c.HeaderPrefix != "" && !validHeaderName(c.HeaderPrefix) {
		ps.add("header_prefix", "%q may only hold header-name characters", c.HeaderPrefix)
	}
	switch c.AcceptedStatus {
	case http.StatusOK, http.StatusCreated, http.StatusAccepted, http.StatusNoContent:
	default:
		ps.add("accepted_status", "must be 200, 201, 202 or 204, got %d", c.AcceptedStatus)
	}
	for _, d := range []struct {
		field string
		v     time.Duration
	}{
		{"read_header_timeout", c.ReadHeaderTimeout}, {"read_timeout", c.ReadTimeout},
		{"write_timeout", c.WriteTimeout}, {"idle_timeout", c.IdleTimeout},
		{"hold_timeout", c.HoldTimeout}, {"shutdown_timeout", c.ShutdownTimeout},
	} {
		checkPositive(&ps, d.field, int64(d.v))
	}
	if c.HoldTimeout > 0 && c.WriteTimeout > 0 && c.HoldTimeout >= c.WriteTimeout {
		ps.add("hold_timeout", "must be shorter than write_timeout (%v), got %v", c.WriteTimeout, c.HoldTimeout)
	}
	if c.HealthPath != "-" {
		if err := checkPath(c.HealthPath, ""); err != nil {
			ps.add("health_path", "%v", err)
		} else if seen[c.HealthPath] {
			ps.add("health_path", "%q is also an ingress path", c.HealthPath)
		}
	}
	return ps.err()
}

func checkPositive(ps *problems, field string, v int64) {
	if v < 0 {
		ps.add(field, "must not be negative, got %d", v)
	}
}

// checkPath accepts an absolute URL path for http.ServeMux whose only
// wildcard, if any, is named wildcard ("" allows none).
func checkPath(p, wildcard string) error {
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("%q must start with /", p)
	}
	if strings.ContainsAny(p, " \t?#") {
		return fmt.Errorf("%q must be a plain path without spaces, query or fragment", p)
	}
	n := 0
	for _, seg := range strings.Split(p, "/") {
		if !strings.ContainsAny(seg, "{}") || seg == "{$}" {
			continue
		}
		name := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(seg, "{"), "}"), "...")
		if wildcard == "" || name != wildcard || seg[0] != '{' || seg[len(seg)-1] != '}' {
			if wildcard == "" {
				return fmt.Errorf("%q may not contain wildcards", p)
			}
			return fmt.Errorf("%q: the only wildcard allowed is {%s} or {%s...}, got %q", p, wildcard, wildcard, seg)
		}
		n++
	}
	if n > 1 {
		return fmt.Errorf("%q has more than one wildcard", p)
	}
	return validPattern(p)
}

// validPattern reports whether http.ServeMux accepts p, which panics on
// patterns it cannot parse.
func validPattern(p string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%q is not a valid path pattern: %v", p, r)
		}
	}()
	http.NewServeMux().Handle(p, http.NotFoundHandler())
	return nil
}
