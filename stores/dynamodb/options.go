package dynamodb

import (
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Option configures Open beyond the settings of Config.
type Option func(*options)

type options struct {
	clock      ports.Clock
	skew       *time.Duration
	logger     *slog.Logger
	meter      telemetry.Meter
	storeLabel string
	client     []func(*dynamodb.Options)
}

func defaultOptions() options {
	return options{clock: clock.System(), logger: slog.New(slog.DiscardHandler), meter: telemetry.Noop()}
}

// WithClock sets the time source for CreatedAt, claim ages, due times and
// lease expiry; the default is the system clock.
func WithClock(c ports.Clock) Option {
	return func(o *options) {
		if c != nil {
			o.clock = c
		}
	}
}

// WithLogger sets the logger for start-up and retried batches; the default
// discards everything.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// WithMetrics records the capacity units DynamoDB reports on m, labelled
// store=name (the store's ID in the configuration). See the README.
func WithMetrics(m telemetry.Meter, name string) Option {
	return func(o *options) {
		if m != nil {
			o.meter, o.storeLabel = m, name
		}
	}
}

// WithClientOptions adjusts the SDK client after the store configured it:
// an HTTP client of one's own, or middleware (the tests inject throttling
// and capacity figures this way).
func WithClientOptions(fns ...func(*dynamodb.Options)) Option {
	return func(o *options) { o.client = append(o.client, fns...) }
}

// WithClockSkew overrides Config.ClockSkew, zero included (the setting
// takes a zero as its default); the tests that drive a fake clock use it.
func WithClockSkew(d time.Duration) Option { return func(o *options) { o.skew = &d } }
