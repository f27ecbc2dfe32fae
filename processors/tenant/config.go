package tenant

import (
	"errors"
	"fmt"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// Defaults applied by Config.WithDefaults.
const (
	DefaultName                     = "tenant"
	DefaultTenantHeader             = "x-tenant-id"
	DefaultInFlightDecrementTimeout = 2 * time.Second
)

// Config is the declarative setup of the processor, as read from the
// `settings` of a processor entry. Zero fields take their defaults.
type Config struct {
	// Name identifies the processor instance (default "tenant").
	Name string `yaml:"name" json:"name"`
	// TenantHeader is the header carrying the tenant ID (default
	// "x-tenant-id"). Names in the bridge's reserved x-bridge. namespace
	// are refused.
	TenantHeader string `yaml:"tenant_header" json:"tenant_header"`
	// RequireTenant refuses messages without a tenant ID instead of
	// letting them through untenanted (default false).
	RequireTenant bool `yaml:"require_tenant" json:"require_tenant"`
	// InFlightDecrementTimeout bounds the tracker calls made when a
	// delivery settles, which run even if the delivery's context was
	// cancelled (default 2s).
	InFlightDecrementTimeout time.Duration `yaml:"in_flight_decrement_timeout" json:"in_flight_decrement_timeout"`
}

// DefaultConfig returns a Config with every default filled in.
func DefaultConfig() Config { return Config{}.WithDefaults() }

// WithDefaults returns c with every zero field replaced by its default.
func (c Config) WithDefaults() Config {
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.TenantHeader == "" {
		c.TenantHeader = DefaultTenantHeader
	}
	if c.InFlightDecrementTimeout == 0 {
		c.InFlightDecrementTimeout = DefaultInFlightDecrementTimeout
	}
	return c
}

// Validate reports every problem with c, each a fault.ErrInvalidConfig
// whose message starts with the field name, joined into one error.
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fault.ErrInvalidConfig.WithMessage(field+": "+fmt.Sprintf(format, args...)))
	}
	if messaging.IsReserved(c.TenantHeader) {
		bad("tenant_header", "%q is in the %s namespace the bridge reserves for itself; use an application header",
			c.TenantHeader, messaging.HeaderPrefix)
	}
	if c.InFlightDecrementTimeout < 0 {
		bad("in_flight_decrement_timeout", "must not be negative (0 takes the default %v), got %v",
			DefaultInFlightDecrementTimeout, c.InFlightDecrementTimeout)
	}
	return errors.Join(errs...)
}
