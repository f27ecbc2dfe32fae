package httpsse

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Option tunes a Receiver, SSESender or WebhookSender beyond its
// declarative configuration. Options a component does not use are
// ignored.
type Option func(*options)

type options struct {
	name   string
	logger *slog.Logger
	meter  telemetry.Meter
	client *http.Client
	log    ports.StreamLog
	// sweep is how often the SSE trimmer sweeps every channel; tests
	// shorten it (withTrimSweep), zero means trimSweep.
	sweep time.Duration
}

func buildOptions(defaultName string, opts []Option) options {
	o := options{name: defaultName}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	if o.meter == nil {
		o.meter = telemetry.Noop()
	}
	return o
}

// WithName sets the instance name used in logs and as the metric label
// (defaults: "http", "sse" and "webhook"). The distro passes the receiver
// or sender ID from the configuration.
func WithName(name string) Option {
	return func(o *options) {
		if name != "" {
			o.name = name
		}
	}
}

// WithLogger sets the logger (slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithMeter sets the meter that receives the transport's metrics (no-op).
func WithMeter(m telemetry.Meter) Option { return func(o *options) { o.meter = m } }

// WithHTTPClient makes a WebhookSender use c instead of the client it
// builds from its configuration. The sender then neither tunes nor closes
// c's transport; the configured timeout still bounds each request.
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.client = c } }

// WithStreamLog makes an SSESender keep its channels' replay logs in l, a
// store's ports.StreamLog, unless its configuration says replay_log:
// memory. Without it the logs are kept in memory, and replay_log: store
// fails NewSSESender.
func WithStreamLog(l ports.StreamLog) Option { return func(o *options) { o.log = l } }

// withTrimSweep sets how often the SSE trimmer sweeps every channel.
func withTrimSweep(d time.Duration) Option { return func(o *options) { o.sweep = d } }
