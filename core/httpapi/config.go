package httpapi

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// MinKeyLength is the shortest API key New accepts.
const MinKeyLength = 16

// Body limits and server timeouts.
const (
	// MaxConfigBody bounds a YAML document posted to validate or reload.
	MaxConfigBody = 1 << 20
	// MaxJSONBody bounds the JSON bodies of the DLQ endpoints.
	MaxJSONBody = 64 << 10

	readHeaderTimeout = 5 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 2 * time.Minute
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 64 << 10
)

// Config sets up the two servers.
type Config struct {
	// AdminAddr and MonitorAddr are listen addresses such as ":8080". An
	// empty address leaves that server out. When both name the same
	// address (and it is not port 0) one listener serves both APIs.
	AdminAddr, MonitorAddr string
	// AdminAPIKey is required (at least MinKeyLength characters) unless
	// KeySource is set. MonitorAPIKey is optional; when empty the monitor
	// API accepts only the admin key.
	AdminAPIKey, MonitorAPIKey string
	// KeySource, when set, is asked for the keys on every request, so a
	// rotated secret takes effect without a restart; the static keys are
	// then ignored and RotateKeys is refused. An empty admin key from it
	// refuses every request.
	KeySource func() (adminKey, monitorKey string)
	// CORSOrigins lists the browser origins allowed to call the APIs
	// ("https://ops.example.com"); "*" is refused.
	CORSOrigins []string
	// TLSCertFile and TLSKeyFile enable HTTPS on both listeners; set both
	// or neither.
	TLSCertFile, TLSKeyFile string
	// MaxEventStreams bounds the admin event streams (the console's live
	// view) open at once; 0 means DefaultMaxEventStreams. A stream over
	// the bound is refused with 429.
	MaxEventStreams int
	// Now is the clock that ends the overlap of rotated keys (see
	// Server.RotateKeys); nil means time.Now.
	Now func() time.Time
	// Logger receives server errors; nil means slog.Default().
	Logger *slog.Logger
}

// check reports every problem of c at once.
func (c Config) check() error {
	var probs []string
	if c.AdminAddr == "" && c.MonitorAddr == "" {
		probs = append(probs, "admin_addr and monitor_addr are both empty")
	}
	if c.KeySource == nil {
		switch {
		case c.AdminAPIKey == "":
			probs = append(probs, "admin_api_key is required")
		case len(c.AdminAPIKey) < MinKeyLength:
			probs = append(probs, fmt.Sprintf("admin_api_key must be at least %d characters", MinKeyLength))
		}
		if c.MonitorAPIKey != "" && len(c.MonitorAPIKey) < MinKeyLength {
			probs = append(probs, fmt.Sprintf("monitor_api_key must be at least %d characters", MinKeyLength))
		}
	}
	if c.MaxEventStreams < 0 {
		probs = append(probs, "max_event_streams must not be negative")
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		probs = append(probs, "tls_cert_file and tls_key_file must be set together")
	}
	for i, o := range c.CORSOrigins {
		switch {
		case strings.Contains(o, "*"):
			probs = append(probs, fmt.Sprintf("cors_origins[%d]: wildcard origins are not allowed", i))
		case o == "":
			probs = append(probs, fmt.Sprintf("cors_origins[%d]: empty origin", i))
		}
	}
	if len(probs) == 0 {
		return nil
	}
	return fault.ErrInvalidConfig.WithMessage("http: " + strings.Join(probs, "; "))
}
