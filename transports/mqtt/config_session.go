package mqtt

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Session defaults.
const (
	DefaultKeepAlive         = 30 * time.Second
	DefaultConnectTimeout    = 10 * time.Second
	DefaultPacketTimeout     = 10 * time.Second
	DefaultReceiveMaximum    = 100
	DefaultMaxPacketSize     = 1 << 20
	DefaultMaxUserProperties = 64
	DefaultReconnectInitial  = time.Second
	DefaultReconnectMax      = 30 * time.Second
	DefaultReconnectFactor   = 2.0
	DefaultReconnectJitter   = 0.2
)

// SessionConfig is the declarative setup of one MQTT v5 connection, as read
// from the settings of a `type: mqtt` session entry. Receivers and senders
// share it. Zero fields take their defaults (see WithDefaults).
type SessionConfig struct {
	// URLs are the brokers to try, in order, on every connection attempt.
	// Schemes: mqtt:// or tcp:// (plain), mqtts://, ssl:// or tls://
	// (TLS), ws:// and wss:// (WebSocket, path included). Required.
	// Credentials go in Username and Password, never in the URL.
	URLs []string `yaml:"urls" json:"urls"`
	// ClientID identifies the session at the broker. Required when the
	// session is meant to survive a reconnect or restart (SessionExpiry >
	// 0); otherwise a random "gobridge-…" id is used.
	ClientID string `yaml:"client_id" json:"client_id"`
	// Username and Password authenticate the connection (none).
	Username string `yaml:"username" json:"username"`
	Password string `yaml:"password" json:"password" secret:"true"`
	// TLS configures mqtts/ssl/tls and wss URLs.
	TLS TLSConfig `yaml:"tls" json:"tls"`
	// KeepAlive is the MQTT keep-alive (30s, whole seconds, at most 65535s).
	KeepAlive time.Duration `yaml:"keep_alive" json:"keep_alive"`
	// CleanStart discards any session the broker kept for ClientID on the
	// first connection of this process (false: resume it). Reconnections
	// within the process always resume.
	CleanStart bool `yaml:"clean_start" json:"clean_start"`
	// SessionExpiry is how long the broker keeps the session (its
	// subscriptions and unacknowledged QoS 1/2 messages) after the
	// connection drops (0: the session ends with the connection). Whole
	// seconds.
	SessionExpiry time.Duration `yaml:"session_expiry" json:"session_expiry"`
	// ConnectTimeout bounds one connection attempt, TLS and CONNACK
	// included (10s).
	ConnectTimeout time.Duration `yaml:"connect_timeout" json:"connect_timeout"`
	// PacketTimeout bounds the wait for a SUBACK, UNSUBACK, PUBACK or
	// PUBCOMP (10s).
	PacketTimeout time.Duration `yaml:"packet_timeout" json:"packet_timeout"`
	// Reconnect is the backoff between connection attempts.
	Reconnect ReconnectConfig `yaml:"reconnect" json:"reconnect"`
	// ReceiveMaximum is the Receive Maximum announced to the broker: how
	// many QoS 1/2 messages it may send before this session acknowledges
	// any (100, at most 65535). It bounds the messages a receiver holds.
	ReceiveMaximum int `yaml:"receive_maximum" json:"receive_maximum"`
	// MaxPacketSize is the Maximum Packet Size announced to the broker
	// (1 MiB). The ingress guard ends the session on a larger packet.
	MaxPacketSize int `yaml:"max_packet_size" json:"max_packet_size"`
	// MaxUserProperties is how many user properties a received message
	// may carry (64). The guard trims longer lists to one entry more than
	// this before the client decodes them; such a message is then
	// acknowledged and dropped.
	MaxUserProperties int `yaml:"max_user_properties" json:"max_user_properties"`
}

// ReconnectConfig is an exponential backoff with jitter between connection
// attempts. A connection that drops soon after it was made does not reset
// the backoff, so a broker that accepts and drops at once is not stormed.
type ReconnectConfig struct {
	// Initial is the first delay (1s).
	Initial time.Duration `yaml:"initial" json:"initial"`
	// Max caps every delay (30s).
	Max time.Duration `yaml:"max" json:"max"`
	// Multiplier grows the delay per attempt, at least 1 (2).
	Multiplier float64 `yaml:"multiplier" json:"multiplier"`
	// Jitter is the randomised fraction of each delay, in [0,1] (0.2).
	Jitter float64 `yaml:"jitter" json:"jitter"`
}

// DefaultSessionConfig returns a SessionConfig with every default filled
// in (URLs still need to be set).
func DefaultSessionConfig() SessionConfig { return SessionConfig{}.WithDefaults() }

// WithDefaults returns c with every zero field replaced by its default.
func (c SessionConfig) WithDefaults() SessionConfig {
	setDefault(&c.KeepAlive, DefaultKeepAlive)
	setDefault(&c.ConnectTimeout, DefaultConnectTimeout)
	setDefault(&c.PacketTimeout, DefaultPacketTimeout)
	setDefault(&c.ReceiveMaximum, DefaultReceiveMaximum)
	setDefault(&c.MaxPacketSize, DefaultMaxPacketSize)
	setDefault(&c.MaxUserProperties, DefaultMaxUserProperties)
	c.Reconnect = c.Reconnect.WithDefaults()
	return c
}

// WithDefaults returns r with every zero field replaced by its default.
func (r ReconnectConfig) WithDefaults() ReconnectConfig {
	setDefault(&r.Initial, DefaultReconnectInitial)
	setDefault(&r.Max, DefaultReconnectMax)
	setDefault(&r.Multiplier, DefaultReconnectFactor)
	setDefault(&r.Jitter, DefaultReconnectJitter)
	return r
}

// Resumes reports whether the session survives both a dropped connection
// and a restart of the bridge: the broker keeps it (SessionExpiry > 0) under
// a fixed ClientID and this process does not discard it (CleanStart
// false). Only then do unacknowledged QoS 1/2 messages come back.
func (c SessionConfig) Resumes() bool {
	return !c.CleanStart && c.SessionExpiry >= time.Second && c.ClientID != ""
}

// Validate reports every problem with c, after applying the defaults,
// each naming its field, joined into one error.
func (c SessionConfig) Validate() error {
	c = c.WithDefaults()
	var ps problems
	if len(c.URLs) == 0 {
		ps.add("urls", "at least one broker URL is required")
	}
	needTLS := false
	for i, raw := range c.URLs {
		u, err := parseBrokerURL(raw)
		if err != nil {
			ps.add(fmt.Sprintf("urls[%d]", i), "%v", err)
			continue
		}
		needTLS = needTLS || isTLSScheme(u.Scheme)
	}
	if strings.ContainsAny(c.ClientID, "\x00") || len(c.ClientID) > 65535 {
		ps.add("client_id", "must be a UTF-8 string without NUL of at most 65535 bytes")
	}
	if c.SessionExpiry > 0 && c.ClientID == "" {
		ps.add("client_id", "is required when session_expiry is set: a resumed session is found by its client id")
	}
	if c.Password != "" && c.Username == "" {
		ps.add("password", "needs a username")
	}
	c.TLS.validate(&ps, needTLS)
	checkSeconds(&ps, "keep_alive", c.KeepAlive, 65535)
	checkSeconds(&ps, "session_expiry", c.SessionExpiry, 1<<32-1)
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"connect_timeout", c.ConnectTimeout}, {"packet_timeout", c.PacketTimeout}} {
		notNegative(&ps, d.field, d.v)
	}
	c.Reconnect.validate(&ps)
	if c.ReceiveMaximum < 1 || c.ReceiveMaximum > 65535 {
		ps.add("receive_maximum", "must be within [1,65535], got %d", c.ReceiveMaximum)
	}
	if c.MaxPacketSize < minPacketSize || c.MaxPacketSize > maxVarint {
		ps.add("max_packet_size", "must be within [%d,%d], got %d", minPacketSize, maxVarint, c.MaxPacketSize)
	}
	if c.MaxUserProperties < 0 {
		ps.add("max_user_properties", "must not be negative, got %d", c.MaxUserProperties)
	}
	return ps.err()
}

func (r ReconnectConfig) validate(ps *problems) {
	notNegative(ps, "reconnect.initial", r.Initial)
	notNegative(ps, "reconnect.max", r.Max)
	if r.Max > 0 && r.Initial > r.Max {
		ps.add("reconnect.initial", "must not exceed reconnect.max (%v), got %v", r.Max, r.Initial)
	}
	if !(r.Multiplier >= 1) {
		ps.add("reconnect.multiplier", "must be >= 1, got %g", r.Multiplier)
	}
	if !(r.Jitter >= 0 && r.Jitter <= 1) {
		ps.add("reconnect.jitter", "must be within [0,1], got %g", r.Jitter)
	}
}

// checkSeconds accepts a non-negative whole number of seconds up to max.
func checkSeconds(ps *problems, field string, d time.Duration, max int64) {
	switch {
	case d < 0:
		ps.add(field, "must not be negative, got %v", d)
	case d%time.Second != 0:
		ps.add(field, "must be whole seconds, got %v", d)
	case int64(d/time.Second) > max:
		ps.add(field, "must be at most %ds, got %v", max, d)
	}
}

// parseBrokerURL checks one broker URL.
func parseBrokerURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL", redactURL(raw))
	}
	switch strings.ToLower(u.Scheme) {
	case "mqtt", "tcp", "mqtts", "ssl", "tls", "ws", "wss":
	default:
		return nil, fmt.Errorf("scheme %q is not supported; use mqtt, tcp, mqtts, ssl, tls, ws or wss", u.Scheme)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%q carries credentials; set username and password instead", redactURL(raw))
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("%q has no host", raw)
	}
	return u, nil
}

// redactURL removes anything between "//" and "@" so that a password
// never reaches a log or an error.
func redactURL(raw string) string {
	i := strings.Index(raw, "//")
	if i < 0 {
		return raw
	}
	rest := raw[i+2:]
	if at := strings.IndexByte(rest, '@'); at >= 0 && !strings.ContainsAny(rest[:at], "/?#") {
		return raw[:i+2] + "REDACTED@" + rest[at+1:]
	}
	return raw
}

func isTLSScheme(s string) bool {
	switch strings.ToLower(s) {
	case "mqtts", "ssl", "tls", "wss":
		return true
	}
	return false
}
