package circuitbreaker

import (
	"log/slog"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Defaults of the options.
const (
	DefaultMaxBreakers          = 10000
	DefaultMetricKeyCardinality = 256
)

// Classifier reports whether a non-nil error returned by the rest of the
// chain counts as a failure of the protected dependency.
type Classifier func(err error) bool

// DefaultClassifier counts transient errors (and errors of unknown origin,
// which core treats as transient) as failures. Permanent, rejected and
// expired errors say nothing about the dependency's health and are not
// counted.
func DefaultClassifier(err error) bool { return err != nil && fault.IsRecoverable(err) }

// Option customises a Processor built by New.
type Option func(*options)

type options struct {
	classify    Classifier
	keyOf       KeyExtractor
	maxBreakers int
	metricKeys  int
	onChange    func(key string, from, to State)
	meter       telemetry.Meter
	clk         ports.Clock
	log         *slog.Logger
}

// WithClassifier replaces DefaultClassifier. A nil fn keeps the default.
func WithClassifier(fn Classifier) Option { return func(o *options) { o.classify = fn } }

// WithKeyExtractor partitions breakers with fn (GlobalKey, SubjectKey,
// HeaderKey(name) or a custom function) instead of Config.Key.
func WithKeyExtractor(fn KeyExtractor) Option { return func(o *options) { o.keyOf = fn } }

// WithMaxBreakers bounds the breaker cache at n entries (default 10000;
// n <= 0 keeps the default). The bound is soft: breakers with calls in
// flight are never evicted, so the cache can briefly hold more.
func WithMaxBreakers(n int) Option { return func(o *options) { o.maxBreakers = n } }

// WithMetricKeyCardinality sets how many distinct keys are exported as
// metric label values verbatim (default 256; n <= 0 keeps the default).
// Further keys share the label value "other".
func WithMetricKeyCardinality(n int) Option { return func(o *options) { o.metricKeys = n } }

// WithOnStateChange installs fn, called with the raw key after every
// breaker transition, outside any lock of the processor.
func WithOnStateChange(fn func(key string, from, to State)) Option {
	return func(o *options) { o.onChange = fn }
}

// WithMeter sends the processor's counters to m (default: discarded).
func WithMeter(m telemetry.Meter) Option { return func(o *options) { o.meter = m } }

// WithClock sets the breakers' time source (default: the system clock).
func WithClock(c ports.Clock) Option { return func(o *options) { o.clk = c } }

// WithLogger sets the logger for state changes (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }
