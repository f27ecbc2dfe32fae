package filter

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/routing"
)

// Action says what a filter does with a message its conditions select.
type Action string

// The actions.
const (
	// ActionPass lets matching messages continue and filters the rest.
	ActionPass Action = "pass"
	// ActionDrop filters matching messages and lets the rest continue.
	ActionDrop Action = "drop"
	// ActionRoute sends matching messages to the binding named by
	// Config.RouteTo; every message continues.
	ActionRoute Action = "route"
)

// Defaults applied by Config.WithDefaults.
const (
	// DefaultName is the processor name used when Config.Name is empty.
	DefaultName = "filter"
	// DefaultMaxPayloadBytes is the payload cap used when
	// Config.MaxPayloadBytes is zero or negative: 1 MiB.
	DefaultMaxPayloadBytes = 1 << 20
)

// ErrRouteRequired is the cause of the configuration error reported when
// Action is route and RouteTo is empty. Test for it with errors.Is.
var ErrRouteRequired = errors.New("is required when action is route")

// Config declares a filter. The zero value is not valid: at least one
// condition and an action are required.
type Config struct {
	// Name identifies the processor instance in metrics, logs and errors.
	// Empty selects DefaultName.
	Name string `yaml:"name" json:"name"`
	// Conditions must all hold for the filter to match. At least one is
	// required.
	Conditions []Condition `yaml:"conditions" json:"conditions"`
	// Action is pass, drop or route. Required.
	Action Action `yaml:"action" json:"action"`
	// RouteTo is the ID of the binding, declared on the same route, that a
	// matching message is sent to. Required with action route and refused
	// with the other actions. A value naming no binding of the route is
	// not an error here: the route logs it and resolves the message as
	// usual.
	RouteTo string `yaml:"route_to,omitempty" json:"route_to,omitempty"`
	// Invert turns the combined result of the conditions around.
	Invert bool `yaml:"invert,omitempty" json:"invert,omitempty"`
	// MaxPayloadBytes is the largest payload a filter with a $. condition
	// accepts. Zero or negative selects DefaultMaxPayloadBytes.
	MaxPayloadBytes int `yaml:"max_payload_bytes,omitempty" json:"max_payload_bytes,omitempty"`
}

// WithDefaults returns c with its defaults filled in: the name and the
// payload cap.
func (c Config) WithDefaults() Config {
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.MaxPayloadBytes <= 0 {
		c.MaxPayloadBytes = DefaultMaxPayloadBytes
	}
	return c
}

// Validate reports every problem of c at once, joined with errors.Join.
// Each problem is an INVALID_CONFIG fault.BridgeError whose message names
// the filter and the field, for example
// `filter "x": route_to: is required when action is route` or
// `filter "x": conditions[1]: operator "foo" is invalid`.
func (c Config) Validate() error {
	_, err := c.compile()
	return err
}

// compile validates c and compiles its conditions.
func (c Config) compile() (*routing.Matcher, error) {
	c = c.WithDefaults()
	var errs []error
	bad := func(field, msg string, cause error) {
		var e *fault.BridgeError
		if cause != nil {
			e = fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("filter %q: %s", c.Name, field)).Wrap(cause)
		} else {
			e = fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("filter %q: %s: %s", c.Name, field, msg))
		}
		errs = append(errs, e.With("processor", c.Name))
	}
	switch c.Action {
	case ActionPass, ActionDrop:
		if c.RouteTo != "" {
			bad("route_to", fmt.Sprintf("is only used when action is route, not %q", c.Action), nil)
		}
	case ActionRoute:
		if strings.TrimSpace(c.RouteTo) == "" {
			bad("route_to", "", ErrRouteRequired)
		}
	case "":
		bad("action", "is required (pass, drop or route)", nil)
	default:
		bad("action", fmt.Sprintf("%q is not one of pass, drop, route", c.Action), nil)
	}
	var m *routing.Matcher
	if len(c.Conditions) == 0 {
		bad("conditions", "at least one condition is required", nil)
	} else {
		var err error
		m, err = routing.Compile(c.Conditions)
		for _, e := range flatten(err) {
			errs = append(errs, renamed(c.Name, e))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return m, nil
}

// flatten lists the errors joined in err.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// renamed puts the filter's name in front of a condition error from the
// routing package, keeping its code and cause.
func renamed(name string, err error) error {
	be, ok := fault.As(err)
	if !ok {
		return fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("filter %q", name)).Wrap(err).With("processor", name)
	}
	out := fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("filter %q: %s", name, be.Message()))
	if cause := be.Unwrap(); cause != nil {
		out = out.Wrap(cause)
	}
	return out.With("processor", name)
}
