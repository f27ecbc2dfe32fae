package filter

import (
	"log/slog"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Option adjusts a filter built by New.
type Option func(*options)

type options struct {
	meter telemetry.Meter
	log   *slog.Logger
}

// WithMeter records the filter's counters on m instead of discarding them.
// A nil m is ignored.
func WithMeter(m telemetry.Meter) Option {
	return func(o *options) {
		if m != nil {
			o.meter = m
		}
	}
}

// WithLogger sets the logger for the filter's debug messages (one per
// filtered, rerouted or oversized message, emitted only when debug logging
// is enabled). A nil l is ignored; the default is slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.log = l
		}
	}
}

func buildOptions(opts []Option) options {
	o := options{meter: telemetry.Noop(), log: slog.Default()}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}
