package amqp10

import (
	"log/slog"
	"math/rand/v2"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Option tunes a Session, Receiver or Sender beyond its declarative
// configuration. Options a component does not use are ignored.
type Option func(*options)

type options struct {
	name        string
	logger      *slog.Logger
	meter       telemetry.Meter
	maxInFlight int
	rand        func() float64
}

func buildOptions(defaultName string, opts []Option) options {
	o := options{name: defaultName, rand: rand.Float64}
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

// WithName sets the instance name used in logs (default "amqp10"). The
// distro passes the session, receiver or sender ID.
func WithName(name string) Option {
	return func(o *options) {
		if name != "" {
			o.name = name
		}
	}
}

// WithLogger sets the logger (slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithMeter sets the meter that receives the transport's metrics (no-op
// by default). The instance name is the metrics' label.
func WithMeter(m telemetry.Meter) Option { return func(o *options) { o.meter = m } }

// WithMaxInFlight tells a Receiver the max_in_flight of the route it
// feeds. Unless ReceiverConfig.Credit is set, the link credit follows it,
// so the peer never has more unsettled deliveries outstanding than the
// route can work on.
func WithMaxInFlight(n int) Option { return func(o *options) { o.maxInFlight = n } }

// WithRand sets the source of uniform numbers in [0,1) used for reconnect
// jitter (math/rand/v2). Tests use it for deterministic delays.
func WithRand(f func() float64) Option { return func(o *options) { o.rand = f } }
