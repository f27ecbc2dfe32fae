package servicebus

import (
	"log/slog"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Option tunes a Receiver or a Sender beyond its declarative
// configuration. Options a component does not use are ignored.
type Option func(*options)

type options struct {
	name        string
	log         *slog.Logger
	meter       telemetry.Meter
	maxInFlight int
}

func buildOptions(opts []Option) options {
	o := options{name: FactoryType}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.log == nil {
		o.log = slog.Default()
	}
	if o.meter == nil {
		o.meter = telemetry.Noop()
	}
	if o.maxInFlight <= 0 {
		o.maxInFlight = DefaultMaxInFlight
	}
	return o
}

// WithName sets the instance name used in logs and as the metrics' label
// (default "servicebus"). The distro passes the receiver or sender ID.
func WithName(name string) Option {
	return func(o *options) {
		if name != "" {
			o.name = name
		}
	}
}

// WithLogger sets the logger (slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithMeter sets the meter that receives the transport's metrics (no-op
// by default).
func WithMeter(m telemetry.Meter) Option { return func(o *options) { o.meter = m } }

// WithMaxInFlight tells a Receiver the max_in_flight of the route it
// feeds (100): it bounds how many messages the receiver holds locked at
// once, prefetched ones included.
func WithMaxInFlight(n int) Option { return func(o *options) { o.maxInFlight = n } }
