package breaker

import (
	"errors"
	"fmt"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// Defaults applied by Config.WithDefaults to fields left at zero.
const (
	DefaultFailureThreshold  = 5
	DefaultSuccessThreshold  = 2
	DefaultResetTimeout      = 30 * time.Second
	DefaultHalfOpenMaxProbes = 1
)

// Config tunes a Breaker. A zero field takes its default; a negative one is
// invalid.
type Config struct {
	// FailureThreshold is how many failures in a row open a closed
	// breaker (default 5).
	FailureThreshold int `yaml:"failure_threshold" json:"failure_threshold"`
	// SuccessThreshold is how many probe successes in a row close a
	// half-open breaker (default 2).
	SuccessThreshold int `yaml:"success_threshold" json:"success_threshold"`
	// ResetTimeout is how long a breaker stays open before it admits
	// probes (default 30s).
	ResetTimeout time.Duration `yaml:"reset_timeout" json:"reset_timeout"`
	// HalfOpenMaxProbes bounds the probes in flight at once while the
	// breaker is half-open (default 1).
	HalfOpenMaxProbes int `yaml:"half_open_max_probes" json:"half_open_max_probes"`
}

// DefaultConfig returns a Config with every default filled in.
func DefaultConfig() Config { return Config{}.WithDefaults() }

// WithDefaults returns c with every zero field replaced by its default.
func (c Config) WithDefaults() Config {
	if c.FailureThreshold == 0 {
		c.FailureThreshold = DefaultFailureThreshold
	}
	if c.SuccessThreshold == 0 {
		c.SuccessThreshold = DefaultSuccessThreshold
	}
	if c.ResetTimeout == 0 {
		c.ResetTimeout = DefaultResetTimeout
	}
	if c.HalfOpenMaxProbes == 0 {
		c.HalfOpenMaxProbes = DefaultHalfOpenMaxProbes
	}
	return c
}

// Validate reports every negative field, each as a fault.ErrInvalidConfig
// naming the field, joined into one error; nil when c is usable.
func (c Config) Validate() error {
	var errs []error
	neg := func(field string, v any) {
		errs = append(errs, fault.ErrInvalidConfig.WithMessage(
			fmt.Sprintf("%s: must not be negative (0 takes the default), got %v", field, v)))
	}
	if c.FailureThreshold < 0 {
		neg("failure_threshold", c.FailureThreshold)
	}
	if c.SuccessThreshold < 0 {
		neg("success_threshold", c.SuccessThreshold)
	}
	if c.ResetTimeout < 0 {
		neg("reset_timeout", c.ResetTimeout)
	}
	if c.HalfOpenMaxProbes < 0 {
		neg("half_open_max_probes", c.HalfOpenMaxProbes)
	}
	return errors.Join(errs...)
}
