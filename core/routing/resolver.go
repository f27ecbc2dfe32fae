package routing

import (
	"context"
	"errors"
	"log/slog"
	"slices"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Resolver types accepted in ResolverSpec.Type.
const (
	TypeStatic    = "static"
	TypeAll       = "all"
	TypeRules     = "rules"
	TypeHeaderMap = "header_map"
)

// Binding is one destination declared on a route.
type Binding struct {
	// ID names the binding; rules and maps refer to it.
	ID string `yaml:"id" json:"id"`
	// Address is the transport address dispatches to this binding use.
	Address string `yaml:"address" json:"address"`
}

// Rule selects BindingID when every condition of Match holds. An empty
// Match always holds.
type Rule struct {
	// BindingID is the binding chosen by the rule.
	BindingID string `yaml:"binding_id" json:"binding_id"`
	// Match lists the conditions, combined with AND.
	Match []Condition `yaml:"match" json:"match"`
}

// ResolverSpec is the configuration of a route's resolver.
type ResolverSpec struct {
	// Type is static (the default when empty), all, rules or header_map.
	Type string `yaml:"type" json:"type"`
	// DefaultBinding is the binding used when nothing else applies; for
	// static it is the binding chosen.
	DefaultBinding string `yaml:"default_binding" json:"default_binding"`
	// HeaderKey names the header whose value header_map looks up.
	HeaderKey string `yaml:"header_key" json:"header_key"`
	// HeaderMap maps header values to binding IDs (header_map only).
	HeaderMap map[string]string `yaml:"header_map" json:"header_map"`
	// Rules are tried in order; the first that matches wins (rules only).
	Rules []Rule `yaml:"rules" json:"rules"`
}

// Option adjusts a resolver built by NewResolver.
type Option func(*options)

type options struct {
	log *slog.Logger
}

// WithLogger sets the logger for warnings, such as a route override that
// names an unknown binding. The default is slog.Default() at build time.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.log = l
		}
	}
}

// NewResolver validates spec against the route's bindings and builds its
// resolver. All problems found are returned together (errors.Join), each an
// INVALID_CONFIG fault.BridgeError.
//
// Every resolver first honours the messaging.HeaderRouteOverride header:
// when it holds the ID of one of bindings, that binding alone is returned.
// Otherwise the type decides:
//
//   - static returns DefaultBinding, or the first binding when unset;
//   - all returns every binding, in declaration order;
//   - rules returns the binding of the first matching rule, else
//     DefaultBinding, else a permanent NOT_FOUND error;
//   - header_map returns the binding mapped from the HeaderKey header
//     value (strings, byte slices and integers are looked up by their
//     text), else DefaultBinding, else a permanent NOT_FOUND error.
//
// An override naming a binding that is not declared is logged as a warning
// and ignored.
//
// The returned resolver is safe for concurrent use. Resolve does not
// allocate, except on slow paths: comparing payload arrays or objects,
// decoding payload strings that hold escapes, rules reading more than
// eight distinct payload paths, and logging. The plan slices it returns are
// built once and shared between calls: callers must not modify them (copy
// before adding per-message Headers).
func NewResolver(spec ResolverSpec, bindings []Binding, opts ...Option) (ports.DestinationResolver, error) {
	o := options{log: slog.Default()}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	plans, byID, errs := buildPlans(bindings)
	known := func(id string) bool { _, ok := byID[id]; return ok }

	if spec.DefaultBinding != "" && !known(spec.DefaultBinding) {
		errs = append(errs, invalidf("resolver.default_binding %q not found in route bindings", spec.DefaultBinding))
	}
	var def []ports.DispatchPlan
	if spec.DefaultBinding != "" {
		def = byID[spec.DefaultBinding]
	}

	var p picker
	switch spec.Type {
	case "", TypeStatic:
		if def == nil && len(plans) > 0 {
			def = plans[0:1:1]
		}
		p = fixedPicker{plans: def}
	case TypeAll:
		p = fixedPicker{plans: plans}
	case TypeRules:
		rp, rerrs := buildRules(spec, byID, def)
		errs = append(errs, rerrs...)
		p = rp
	case TypeHeaderMap:
		hp, herrs := buildHeaderMap(spec, byID, def)
		errs = append(errs, herrs...)
		p = hp
	default:
		errs = append(errs, invalidf("resolver.type %q is invalid; must be one of: rules, header_map, all, static", spec.Type))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &resolver{byID: byID, pick: p, log: o.log}, nil
}

// buildPlans precomputes one plan per binding, in one backing array. Each
// single-plan slice has its capacity capped so an append by a careless
// caller cannot overwrite a neighbour.
func buildPlans(bindings []Binding) ([]ports.DispatchPlan, map[string][]ports.DispatchPlan, []error) {
	var errs []error
	if len(bindings) == 0 {
		errs = append(errs, invalidf("route has no bindings; a resolver needs at least one"))
	}
	plans := make([]ports.DispatchPlan, 0, len(bindings))
	for i, b := range bindings {
		switch {
		case b.ID == "":
			errs = append(errs, invalidf("bindings[%d]: id is required", i))
		case slices.ContainsFunc(plans, func(p ports.DispatchPlan) bool { return p.BindingID == b.ID }):
			errs = append(errs, invalidf("bindings[%d]: duplicate binding id %q", i, b.ID))
		default:
			plans = append(plans, ports.DispatchPlan{BindingID: b.ID, Address: b.Address})
		}
	}
	plans = slices.Clip(plans)
	byID := make(map[string][]ports.DispatchPlan, len(plans))
	for i := range plans {
		byID[plans[i].BindingID] = plans[i : i+1 : i+1]
	}
	return plans, byID, errs
}

// picker chooses plans once the override has been considered.
type picker interface {
	pick(env *messaging.Envelope) ([]ports.DispatchPlan, error)
}

// fixedPicker always returns the same plans (static and all).
type fixedPicker struct{ plans []ports.DispatchPlan }

func (p fixedPicker) pick(*messaging.Envelope) ([]ports.DispatchPlan, error) { return p.plans, nil }

// resolver is the ports.DestinationResolver built by NewResolver. It is
// immutable after construction.
type resolver struct {
	byID map[string][]ports.DispatchPlan
	pick picker
	log  *slog.Logger
}

// Resolve implements ports.DestinationResolver.
func (r *resolver) Resolve(ctx context.Context, env *messaging.Envelope) ([]ports.DispatchPlan, error) {
	if env != nil {
		if v, ok := env.Headers[messaging.HeaderRouteOverride]; ok {
			if plans, ok := r.override(ctx, v); ok {
				return plans, nil
			}
		}
	}
	return r.pick.pick(env)
}
