package amqp091

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"time"
)

// Session defaults.
const (
	DefaultURL              = "amqp://guest:guest@127.0.0.1:5672/"
	DefaultHeartbeat        = 10 * time.Second
	DefaultDialTimeout      = 30 * time.Second
	DefaultReconnectInitial = 500 * time.Millisecond
	DefaultReconnectMax     = 30 * time.Second
	DefaultReconnectFactor  = 2.0
	DefaultReconnectJitter  = 0.2
	DefaultProbeInterval    = time.Second
)

// SessionConfig is the declarative setup of a Session, as read from the
// settings of a `type: amqp091` session entry. Zero fields take their
// defaults (see WithDefaults).
type SessionConfig struct {
	// URL is the broker address, amqp:// or amqps://, with credentials
	// (amqp://guest:guest@127.0.0.1:5672/).
	URL string `yaml:"url" json:"url"`
	// Vhost overrides the virtual host named by the URL's path, when set.
	Vhost string `yaml:"vhost" json:"vhost"`
	// Heartbeat is the keep-alive interval proposed to the broker (10s).
	Heartbeat time.Duration `yaml:"heartbeat" json:"heartbeat"`
	// ConnectionName is shown in the broker's management tools (the
	// session's name).
	ConnectionName string `yaml:"connection_name" json:"connection_name"`
	// DialTimeout bounds the TCP, TLS and AMQP handshakes of one
	// connection attempt (30s).
	DialTimeout time.Duration `yaml:"dial_timeout" json:"dial_timeout"`
	// CoalesceWrites batches the frames that concurrent publishes and
	// acks write into fewer socket writes (true). See README, Benchmarks.
	CoalesceWrites *bool `yaml:"coalesce_writes" json:"coalesce_writes"`
	// TLS configures amqps connections.
	TLS TLSConfig `yaml:"tls" json:"tls"`
	// Reconnect is the backoff between connection attempts.
	Reconnect ReconnectConfig `yaml:"reconnect" json:"reconnect"`
	// Topology is declared on every connection before it is used.
	Topology Topology `yaml:"topology" json:"topology"`
}

// TLSConfig configures the TLS side of an amqps connection. With every
// field empty the system roots verify the broker.
type TLSConfig struct {
	// CAFile is a PEM bundle of the authorities that may sign the
	// broker's certificate (system roots when empty).
	CAFile string `yaml:"ca_file" json:"ca_file"`
	// CertFile and KeyFile are the client certificate and key, in PEM,
	// for brokers that authenticate clients by certificate.
	CertFile string `yaml:"cert_file" json:"cert_file"`
	KeyFile  string `yaml:"key_file" json:"key_file"`
	// ServerName overrides the name checked against the broker's
	// certificate (the URL's host).
	ServerName string `yaml:"server_name" json:"server_name"`
	// InsecureSkipVerify disables certificate verification. Only for
	// tests.
	InsecureSkipVerify bool `yaml:"insecure_skip_verify" json:"insecure_skip_verify"`
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
	// Jitter is the randomised fraction of each delay, in [0,1]; nil
	// means 0.2.
	Jitter *float64 `yaml:"jitter" json:"jitter"`
	// ProbeInterval is how often a session waiting to reconnect checks,
	// with a plain TCP dial, whether an unreachable broker is back; once
	// it is, the session connects at once and restarts the backoff (1s).
	ProbeInterval time.Duration `yaml:"probe_interval" json:"probe_interval"`
}

// DefaultSessionConfig returns a SessionConfig with every default filled
// in.
func DefaultSessionConfig() SessionConfig { return SessionConfig{}.WithDefaults() }

// WithDefaults returns c with every zero field replaced by its default.
func (c SessionConfig) WithDefaults() SessionConfig {
	setDefault(&c.URL, DefaultURL)
	setDefault(&c.Heartbeat, DefaultHeartbeat)
	setDefault(&c.DialTimeout, DefaultDialTimeout)
	c.Reconnect = c.Reconnect.WithDefaults()
	c.Topology = c.Topology.WithDefaults()
	return c
}

// WithDefaults returns c with every zero field replaced by its default.
func (c ReconnectConfig) WithDefaults() ReconnectConfig {
	setDefault(&c.Initial, DefaultReconnectInitial)
	setDefault(&c.Max, DefaultReconnectMax)
	setDefault(&c.Factor, DefaultReconnectFactor)
	setDefault(&c.ProbeInterval, DefaultProbeInterval)
	if c.Jitter == nil {
		j := DefaultReconnectJitter
		c.Jitter = &j
	}
	return c
}

// Delay returns the wait before connection attempt number attempt+1 (1
// for the wait after the first failure), given a uniform rnd in [0,1).
func (c ReconnectConfig) Delay(attempt int, rnd float64) time.Duration {
	c = c.WithDefaults()
	d := float64(c.Initial)
	for i := 1; i < attempt && d < float64(c.Max); i++ {
		d *= c.Factor
	}
	d = min(d, float64(c.Max))
	j := *c.Jitter
	return time.Duration(d*(1-j) + rnd*d*j)
}

// Validate reports every problem with c, after applying the defaults,
// each naming its field, joined into one error.
func (c SessionConfig) Validate() error {
	c = c.WithDefaults()
	var ps problems
	if u, err := url.Parse(c.URL); err != nil {
		ps.add("url", "not a URL (%s)", redactURL(c.URL))
	} else if (u.Scheme != "amqp" && u.Scheme != "amqps") || u.Host == "" {
		ps.add("url", "%s must be an amqp:// or amqps:// URL with a host", redactURL(c.URL))
	}
	if c.Heartbeat < time.Second {
		ps.add("heartbeat", "must be at least 1s, got %v", c.Heartbeat)
	}
	checkPositive(&ps, "dial_timeout", c.DialTimeout)
	if (c.TLS.CertFile == "") != (c.TLS.KeyFile == "") {
		ps.add("tls", "cert_file and key_file go together")
	}
	r := c.Reconnect
	checkPositive(&ps, "reconnect.initial", r.Initial)
	if r.Max < r.Initial {
		ps.add("reconnect.max", "must be at least reconnect.initial (%v), got %v", r.Initial, r.Max)
	}
	if r.Factor < 1 {
		ps.add("reconnect.factor", "must be >= 1, got %v", r.Factor)
	}
	if j := *r.Jitter; j < 0 || j > 1 {
		ps.add("reconnect.jitter", "must be in [0,1], got %v", j)
	}
	checkPositive(&ps, "reconnect.probe_interval", r.ProbeInterval)
	ps.addPrefixed("topology.", c.Topology.Validate())
	return ps.err()
}

// tlsConfig builds the crypto/tls configuration, or nil for amqp://.
func (c SessionConfig) tlsConfig(u *url.URL) (*tls.Config, error) {
	if u.Scheme != "amqps" {
		return nil, nil
	}
	t := c.TLS
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: u.Hostname(), InsecureSkipVerify: t.InsecureSkipVerify} //nolint:gosec // opt-in for tests
	if t.ServerName != "" {
		cfg.ServerName = t.ServerName
	}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("tls.ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls.ca_file: no PEM certificate in %s", t.CAFile)
		}
		cfg.RootCAs = pool
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("tls.cert_file/key_file: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// redactURL keeps the scheme, host and path of a broker URL for messages;
// the password never appears.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable URL>"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}
