package transform

import (
	"log/slog"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Option adjusts a processor built by New.
type Option func(*options)

type options struct {
	meter telemetry.Meter
	log   *slog.Logger
}

// WithMeter records the processor's counters on m instead of discarding
// them. A nil m is ignored.
func WithMeter(m telemetry.Meter) Option {
	return func(o *options) {
		if m != nil {
			o.meter = m
		}
	}
}

// WithLogger sets the logger for debug messages about skipped mappings
// and refused messages, emitted only when debug logging is enabled. A nil
// l is ignored; the default is slog.Default().
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
