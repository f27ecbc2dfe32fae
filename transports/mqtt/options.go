package mqtt

import (
	"log/slog"
	"math/rand/v2"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Option tunes a Session, Receiver or Sender beyond its declarative
// configuration. Options a component does not use are ignored.
type Option func(*options)

type options struct {
	name   string
	logger *slog.Logger
	meter  telemetry.Meter
	rand   func() float64
	ledger ports.SubscriptionLedger
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
	if o.rand == nil {
		o.rand = rand.Float64
	}
	return o
}

// WithName sets the instance name used in logs and as the metric label
// (defaults: "mqtt-session", "mqtt-in", "mqtt-out"). The distro passes the
// session, receiver or sender ID from the configuration.
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

// WithRand sets the source of uniform numbers in [0,1) for the reconnect
// jitter (math/rand/v2), so tests can pin the delays.
func WithRand(f func() float64) Option { return func(o *options) { o.rand = f } }

// WithSubscriptionLedger gives a durable session (session_expiry above
// zero) a ledger of the subscriptions it made. When the broker resumes
// the session at a later start, the session reads the ledger and
// unsubscribes what is recorded there but no longer configured; after
// every convergence it records what the broker holds. Without a ledger a
// subscription removed from the configuration stays in the broker-side
// session and its messages are acked and dropped.
func WithSubscriptionLedger(l ports.SubscriptionLedger) Option {
	return func(o *options) { o.ledger = l }
}
