package tenant

import (
	"log/slog"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Option customises a Processor built by New.
type Option func(*options)

type options struct {
	validator TenantValidator
	tracker   TenantUsageTracker
	meter     telemetry.Meter
	log       *slog.Logger
}

// WithValidator checks every tenant ID with v: inactive tenants and
// payloads above the tenant's size cap are refused, and v supplies the
// in-flight ceiling. Without a validator any ID is accepted.
func WithValidator(v TenantValidator) Option { return func(o *options) { o.validator = v } }

// WithUsageTracker counts in-flight and processed deliveries per tenant
// with t. When t also implements TenantUsageReader the in-flight ceiling
// from the validator is enforced.
func WithUsageTracker(t TenantUsageTracker) Option { return func(o *options) { o.tracker = t } }

// WithMeter sends the processor's counters to m (default: discarded).
func WithMeter(m telemetry.Meter) Option { return func(o *options) { o.meter = m } }

// WithLogger sets the logger for tracker failures (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }
