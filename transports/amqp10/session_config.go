package amqp10

import (
	"net/url"
	"time"
)

// Session defaults.
const (
	DefaultURL              = "amqp://127.0.0.1:5672"
	DefaultIdleTimeout      = 60 * time.Second
	DefaultDialTimeout      = 30 * time.Second
	DefaultCloseTimeout     = 5 * time.Second
	DefaultReconnectInitial = 500 * time.Millisecond
	DefaultReconnectMax     = 30 * time.Second
	DefaultReconnectFactor  = 2.0
	DefaultReconnectJitter  = 0.2
)

// SASL mechanisms.
const (
	SASLPlain     = "plain"
	SASLAnonymous = "anonymous"
	SASLExternal  = "external"
)

// SessionConfig is the declarative setup of a Session, as read from the
// settings of a `type: amqp10` session entry. Zero fields take their
// defaults (see WithDefaults).
type SessionConfig struct {
	// URL is the peer address, amqp:// or amqps:// (amqp://127.0.0.1:5672).
	// Credentials go in Username and Password, not in the URL.
	URL string `yaml:"url" json:"url"`
	// SASL is the mechanism: plain, anonymous or external (plain when
	// Username is set, else anonymous). external needs an amqps:// URL and
	// a client certificate (TLS.CertFile, TLS.KeyFile): the peer takes the
	// identity from the certificate.
	SASL string `yaml:"sasl" json:"sasl"`
	// Username and Password are the SASL PLAIN credentials.
	Username string `yaml:"username" json:"username"`
	Password string `yaml:"password" json:"password" secret:"true"`
	// ContainerID identifies this bridge to the peer (the session's name).
	ContainerID string `yaml:"container_id" json:"container_id"`
	// IdleTimeout is the idle timeout announced to the peer; the peer
	// closes the connection when nothing arrives for that long, and the
	// client keeps the connection alive within the peer's (60s).
	IdleTimeout time.Duration `yaml:"idle_timeout" json:"idle_timeout"`
	// DialTimeout bounds the TCP, TLS, SASL and AMQP handshakes of one
	// connection attempt (30s).
	DialTimeout time.Duration `yaml:"dial_timeout" json:"dial_timeout"`
	// CloseTimeout bounds closing an AMQP session or connection (5s); some
	// peers never answer a detach.
	CloseTimeout time.Duration `yaml:"close_timeout" json:"close_timeout"`
	// TLS configures amqps:// connections.
	TLS TLSConfig `yaml:"tls" json:"tls"`
	// Reconnect is the backoff between connection attempts.
	Reconnect ReconnectConfig `yaml:"reconnect" json:"reconnect"`
}

// ReconnectConfig is an exponential backoff with jitter between
// connection attempts: delay = d*(1-jitter) + rand*d*jitter, where d grows
// from Initial by Factor per failed attempt up to Max.
type ReconnectConfig struct {
	// Initial is the first delay (500ms).
	Initial time.Duration `yaml:"initial" json:"initial"`
	// Max caps every delay (30s).
	Max time.Duration `yaml:"max" json:"max"`
	// Factor is the growth per attempt, at least 1 (2).
	Factor float64 `yaml:"factor" json:"factor"`
	// Jitter is the randomised fraction of each delay, in [0,1] (0.2).
	Jitter *float64 `yaml:"jitter" json:"jitter"`
}

// WithDefaults returns c with every zero field replaced by its default.
func (c SessionConfig) WithDefaults() SessionConfig {
	setDefault(&c.URL, DefaultURL)
	if c.SASL == "" {
		c.SASL = SASLAnonymous
		if c.Username != "" {
			c.SASL = SASLPlain
		}
	}
	setDefault(&c.IdleTimeout, DefaultIdleTimeout)
	setDefault(&c.DialTimeout, DefaultDialTimeout)
	setDefault(&c.CloseTimeout, DefaultCloseTimeout)
	setDefault(&c.Reconnect.Initial, DefaultReconnectInitial)
	setDefault(&c.Reconnect.Max, DefaultReconnectMax)
	setDefault(&c.Reconnect.Factor, DefaultReconnectFactor)
	if c.Reconnect.Jitter == nil {
		j := DefaultReconnectJitter
		c.Reconnect.Jitter = &j
	}
	return c
}

// Validate reports every problem of c, each naming its field. Call it on
// the result of WithDefaults.
func (c SessionConfig) Validate() error {
	var p problems
	scheme := ""
	if u, err := url.Parse(c.URL); err != nil {
		p.add("url", "cannot parse: %v", err)
	} else {
		scheme = u.Scheme
		if u.Scheme != "amqp" && u.Scheme != "amqps" {
			p.add("url", "scheme must be amqp or amqps, got %q", u.Scheme)
		}
		if u.Host == "" {
			p.add("url", "has no host")
		}
		if u.User != nil {
			p.add("url", "must not carry credentials; use username and password")
		}
	}
	switch c.SASL {
	case SASLPlain:
		if c.Username == "" {
			p.add("username", "required with sasl plain")
		}
	case SASLAnonymous:
		if c.Username != "" || c.Password != "" {
			p.add("username", "must be empty with sasl anonymous")
		}
	case SASLExternal:
		if c.Username != "" || c.Password != "" {
			p.add("username", "must be empty with sasl external; the identity comes from the client certificate")
		}
		if !c.TLS.clientCert() {
			p.add("sasl", "external needs a client certificate (tls.cert_file and tls.key_file)")
		}
		if scheme == "amqp" {
			p.add("sasl", "external needs an amqps:// url")
		}
	default:
		p.add("sasl", "must be plain, anonymous or external, got %q", c.SASL)
	}
	c.TLS.validate(&p, scheme)
	for _, f := range []struct {
		field string
		d     time.Duration
	}{{"idle_timeout", c.IdleTimeout}, {"dial_timeout", c.DialTimeout}, {"close_timeout", c.CloseTimeout},
		{"reconnect.initial", c.Reconnect.Initial}, {"reconnect.max", c.Reconnect.Max}} {
		if f.d <= 0 {
			p.add(f.field, "must be positive, got %v", f.d)
		}
	}
	if c.Reconnect.Max < c.Reconnect.Initial {
		p.add("reconnect.max", "must be at least reconnect.initial (%v), got %v", c.Reconnect.Initial, c.Reconnect.Max)
	}
	if c.Reconnect.Factor < 1 {
		p.add("reconnect.factor", "must be at least 1, got %v", c.Reconnect.Factor)
	}
	if j := c.Reconnect.Jitter; j != nil && (*j < 0 || *j > 1) {
		p.add("reconnect.jitter", "must be within [0,1], got %v", *j)
	}
	return p.err()
}

// delay returns the backoff before attempt n (0-based), with r in [0,1).
func (r ReconnectConfig) delay(n int, rnd float64) time.Duration {
	d := float64(r.Initial)
	for range n {
		d *= r.Factor
		if d >= float64(r.Max) {
			d = float64(r.Max)
			break
		}
	}
	j := 0.0
	if r.Jitter != nil {
		j = *r.Jitter
	}
	return time.Duration(d*(1-j) + rnd*d*j)
}
