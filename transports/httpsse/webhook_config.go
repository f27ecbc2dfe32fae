package httpsse

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Webhook defaults.
const (
	DefaultWebhookTimeout      = 10 * time.Second
	DefaultMaxBatchSize        = 100
	DefaultSignatureHeader     = "X-Gobridge-Signature-256"
	DefaultRawContentType      = "application/octet-stream"
	DefaultMaxIdleConnsPerHost = 32
	DefaultIdleConnTimeout     = 90 * time.Second
	DefaultMaxRetryAfter       = 5 * time.Minute
)

// WebhookConfig is the declarative setup of the webhook sender, as read
// from the settings of a `type: webhook` sender entry. Zero fields take
// their defaults (see WithDefaults).
type WebhookConfig struct {
	// URL is the target of sends whose address is empty, and the base
	// that relative addresses resolve against (so address "orders" with
	// URL https://hooks.example.com/in/ posts to …/in/orders). An
	// address that is an absolute http(s) URL is used as it is.
	URL string `yaml:"url" json:"url"`
	// Body is envelope (default: the JSON of MarshalEnvelope) or raw (the
	// payload as it is, with the subject in the gobridge.subject header).
	Body BodyMode `yaml:"body" json:"body"`
	// Batch makes SendBatch post a JSON array of envelopes per target URL
	// instead of one request per message. It needs Body envelope.
	Batch bool `yaml:"batch" json:"batch"`
	// MaxBatchSize bounds the messages of one batch request (100).
	MaxBatchSize int `yaml:"max_batch_size" json:"max_batch_size"`
	// Headers are set on every request, for example an Authorization
	// header the endpoint expects.
	Headers map[string]string `yaml:"headers" json:"headers" secret:"true"`
	// HeaderMap sends envelope headers as HTTP headers, renamed: the key
	// is the envelope header, the value the HTTP header name. It applies
	// to both body modes.
	HeaderMap map[string]string `yaml:"header_map" json:"header_map"`
	// HeaderPrefix is prepended to envelope header names sent as HTTP
	// headers in raw mode ("").
	HeaderPrefix string `yaml:"header_prefix" json:"header_prefix"`
	// ContentType is the Content-Type of raw bodies whose envelope has no
	// content-type header ("application/octet-stream").
	ContentType string `yaml:"content_type" json:"content_type"`
	// SigningSecret, when set, signs every body: the SignatureHeader
	// carries "sha256=" and the lower-case hex HMAC-SHA256 of the exact
	// body bytes, keyed with this secret.
	SigningSecret string `yaml:"signing_secret" json:"signing_secret" secret:"true"`
	// SignatureHeader names the signature header
	// ("X-Gobridge-Signature-256").
	SignatureHeader string `yaml:"signature_header" json:"signature_header"`
	// Timeout bounds each request, response headers included (10s).
	Timeout time.Duration `yaml:"timeout" json:"timeout"`
	// MaxIdleConnsPerHost is how many kept-alive connections per host
	// wait for reuse (32); MaxConnsPerHost bounds all connections per host
	// (0: no bound).
	MaxIdleConnsPerHost int `yaml:"max_idle_conns_per_host" json:"max_idle_conns_per_host"`
	MaxConnsPerHost     int `yaml:"max_conns_per_host" json:"max_conns_per_host"`
	// IdleConnTimeout closes connections idle this long (90s).
	IdleConnTimeout time.Duration `yaml:"idle_conn_timeout" json:"idle_conn_timeout"`
	// MaxRetryAfter caps the Retry-After an endpoint may ask for (5m).
	MaxRetryAfter time.Duration `yaml:"max_retry_after" json:"max_retry_after"`
}

// DefaultWebhookConfig returns a WebhookConfig with every default filled
// in.
func DefaultWebhookConfig() WebhookConfig { return WebhookConfig{}.WithDefaults() }

// WithDefaults returns c with every zero field replaced by its default.
func (c WebhookConfig) WithDefaults() WebhookConfig {
	if c.Body == "" {
		c.Body = BodyEnvelope
	}
	setDefault(&c.MaxBatchSize, DefaultMaxBatchSize)
	if c.SignatureHeader == "" {
		c.SignatureHeader = DefaultSignatureHeader
	}
	if c.ContentType == "" {
		c.ContentType = DefaultRawContentType
	}
	setDefault(&c.Timeout, DefaultWebhookTimeout)
	setDefault(&c.MaxIdleConnsPerHost, DefaultMaxIdleConnsPerHost)
	setDefault(&c.IdleConnTimeout, DefaultIdleConnTimeout)
	setDefault(&c.MaxRetryAfter, DefaultMaxRetryAfter)
	return c
}

// Validate reports every problem with c, after applying the defaults,
// each naming its field, joined into one error.
func (c WebhookConfig) Validate() error {
	c = c.WithDefaults()
	var ps problems
	if c.URL != "" {
		if _, err := parseTarget(c.URL); err != nil {
			ps.add("url", "%v", err)
		}
	}
	switch c.Body {
	case BodyEnvelope:
	case BodyRaw:
		if c.Batch {
			ps.add("batch", "needs body envelope: a batch is a JSON array of envelopes")
		}
	default:
		ps.add("body", "%q is invalid; must be envelope or raw", c.Body)
	}
	if c.MaxBatchSize < 0 {
		ps.add("max_batch_size", "must not be negative, got %d", c.MaxBatchSize)
	}
	for _, k := range sortedKeys(c.Headers) {
		if !validHeaderName(k) || hopHeaders[strings.ToLower(k)] && !strings.EqualFold(k, "authorization") {
			ps.add("headers."+k, "is not a header name a request may set")
		} else if !validHeaderValue(c.Headers[k]) {
			ps.add("headers."+k, "value contains control characters")
		}
	}
	for _, k := range sortedKeys(c.HeaderMap) {
		if v := c.HeaderMap[k]; !validHeaderName(v) || hopHeaders[strings.ToLower(v)] {
			ps.add("header_map."+k, "%q is not a header name a request may set", v)
		}
	}
	if c.HeaderPrefix != "" && !validHeaderName(c.HeaderPrefix) {
		ps.add("header_prefix", "%q may only hold header-name characters", c.HeaderPrefix)
	}
	if !validHeaderName(c.SignatureHeader) {
		ps.add("signature_header", "%q is not an HTTP header name", c.SignatureHeader)
	}
	if strings.ContainsAny(c.ContentType, "\r\n") || !strings.Contains(c.ContentType, "/") {
		ps.add("content_type", "%q is not a media type", c.ContentType)
	}
	for _, f := range []struct {
		field string
		v     int64
	}{
		{"timeout", int64(c.Timeout)}, {"max_idle_conns_per_host", int64(c.MaxIdleConnsPerHost)},
		{"max_conns_per_host", int64(c.MaxConnsPerHost)}, {"idle_conn_timeout", int64(c.IdleConnTimeout)},
		{"max_retry_after", int64(c.MaxRetryAfter)},
	} {
		checkPositive(&ps, f.field, f.v)
	}
	return ps.err()
}

// parseTarget parses an absolute http or https URL.
func parseTarget(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL: %v", redact(raw), err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q must be an absolute http or https URL", redact(raw))
	}
	return u, nil
}

// redact keeps the scheme and host of a URL for messages: webhook URLs
// often carry secrets in their path or query.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		if len(raw) > 16 {
			return raw[:16] + "…"
		}
		return raw
	}
	return u.Scheme + "://" + u.Host + "/…"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
