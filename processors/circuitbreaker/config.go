package circuitbreaker

import (
	"errors"
	"fmt"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/processors/circuitbreaker/breaker"
)

// KeySource selects how Config derives a message's breaker key.
type KeySource string

// The key sources a Config can name.
const (
	// KeyGlobal shares one breaker among all messages.
	KeyGlobal KeySource = "global"
	// KeySubject keeps one breaker per Envelope.Subject.
	KeySubject KeySource = "subject"
	// KeyHeader keeps one breaker per value of Config.HeaderKey.
	KeyHeader KeySource = "header"
)

// DefaultName is the processor name used when Config.Name is empty.
const DefaultName = "circuitbreaker"

// Config is the declarative setup of the processor, as read from the
// `settings` of a processor entry. Zero fields take their defaults.
type Config struct {
	// Name identifies the processor instance in logs, metrics and errors
	// (default "circuitbreaker").
	Name string `yaml:"name" json:"name"`
	// FailureThreshold is how many countable failures in a row open a
	// breaker (default 5).
	FailureThreshold int `yaml:"failure_threshold" json:"failure_threshold"`
	// SuccessThreshold is how many probe successes in a row close a
	// half-open breaker (default 2).
	SuccessThreshold int `yaml:"success_threshold" json:"success_threshold"`
	// ResetTimeout is how long a breaker stays open before probing
	// (default 30s).
	ResetTimeout time.Duration `yaml:"reset_timeout" json:"reset_timeout"`
	// HalfOpenMaxProbes bounds concurrent probes of a half-open breaker
	// (default 1).
	HalfOpenMaxProbes int `yaml:"half_open_max_probes" json:"half_open_max_probes"`
	// Key selects the breaker partition: global (default), subject or
	// header. WithKeyExtractor overrides it.
	Key KeySource `yaml:"key" json:"key"`
	// HeaderKey names the header whose value is the key; required with
	// Key "header" and not allowed otherwise.
	HeaderKey string `yaml:"header_key" json:"header_key"`
}

// DefaultConfig returns a Config with every default filled in.
func DefaultConfig() Config { return Config{}.WithDefaults() }

// WithDefaults returns c with every zero field replaced by its default.
func (c Config) WithDefaults() Config {
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.Key == "" {
		c.Key = KeyGlobal
	}
	bc := c.Breaker().WithDefaults()
	c.FailureThreshold, c.SuccessThreshold = bc.FailureThreshold, bc.SuccessThreshold
	c.ResetTimeout, c.HalfOpenMaxProbes = bc.ResetTimeout, bc.HalfOpenMaxProbes
	return c
}

// Breaker returns the state-machine part of c.
func (c Config) Breaker() breaker.Config {
	return breaker.Config{
		FailureThreshold:  c.FailureThreshold,
		SuccessThreshold:  c.SuccessThreshold,
		ResetTimeout:      c.ResetTimeout,
		HalfOpenMaxProbes: c.HalfOpenMaxProbes,
	}
}

// Validate reports every problem with c, each a fault.ErrInvalidConfig
// whose message starts with the field name, joined into one error.
func (c Config) Validate() error {
	var errs []error
	if err := c.Breaker().Validate(); err != nil {
		errs = append(errs, err)
	}
	bad := func(field, format string, args ...any) {
		errs = append(errs, fault.ErrInvalidConfig.WithMessage(field+": "+fmt.Sprintf(format, args...)))
	}
	switch c.Key {
	case "", KeyGlobal, KeySubject:
		if c.HeaderKey != "" {
			bad("header_key", "only used with key %q; got key %q", KeyHeader, c.Key)
		}
	case KeyHeader:
		if c.HeaderKey == "" {
			bad("header_key", "is required when key is %q", KeyHeader)
		}
	default:
		bad("key", "%q is invalid; must be one of: global, subject, header", c.Key)
	}
	return errors.Join(errs...)
}
