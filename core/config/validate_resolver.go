package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/routing"
)

// resolver checks a route's resolver against the route's bindings.
// Conditions are compiled by core/routing, so a condition accepted here is
// one the runtime accepts.
func (v *validator) resolver(path string, r *Route) {
	rs := r.Resolver
	at := func(k string) string { return join(path, k) }
	inRoute := func(id string) bool { return slices.Contains(r.Bindings, id) }
	switch rs.Type {
	case "":
		v.addf(at("type"), "type is required")
	case ResolverRules, ResolverHeaderMap, ResolverAll, ResolverStatic:
	default:
		v.addf(at("type"), "resolver.type %q is invalid; must be one of: rules, header_map, all, static", rs.Type)
	}
	if rs.DefaultBinding != "" && !inRoute(rs.DefaultBinding) {
		v.addf(at("default_binding"), "resolver.default_binding %q not found in route bindings", rs.DefaultBinding)
	}
	if rs.Type == ResolverHeaderMap {
		if rs.HeaderKey == "" {
			v.addf(at("header_key"), "resolver.header_key is required for header_map type")
		}
		if len(rs.HeaderMap) == 0 {
			v.addf(at("header_map"), "resolver.header_map must have at least one entry")
		}
		for _, k := range sortedKeys(rs.HeaderMap) {
			if id := rs.HeaderMap[k]; !inRoute(id) {
				v.addf(join(at("header_map"), k), "resolver.header_map[%q] references unknown binding %q", k, id)
			}
		}
	} else if rs.HeaderKey != "" || len(rs.HeaderMap) > 0 {
		v.warnf(at("header_map"), "header_key and header_map are ignored by resolver type %q", rs.Type)
	}
	if rs.Type == ResolverRules {
		if len(rs.Rules) == 0 && rs.DefaultBinding == "" {
			v.addf(at("rules"), "resolver type \"rules\" requires at least one rule or a default_binding")
		}
	} else if len(rs.Rules) > 0 {
		v.warnf(at("rules"), "rules are ignored by resolver type %q", rs.Type)
	}
	for j, rule := range rs.Rules {
		rp := index(at("rules"), j)
		switch {
		case rule.BindingID == "":
			v.addf(join(rp, "binding_id"), "binding_id is required")
		case !inRoute(rule.BindingID):
			v.addf(join(rp, "binding_id"), "binding_id %q not found in route bindings", rule.BindingID)
		}
		for k, c := range rule.Match {
			for _, msg := range conditionProblems(c) {
				v.addf(index(join(rp, "match"), k), "%s", msg)
			}
		}
	}
}

// conditionProblems compiles one condition with core/routing and returns
// its messages without routing's positional prefix.
func conditionProblems(c Condition) []string {
	_, err := routing.Compile([]routing.Condition{c.routing()})
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		msgs = append(msgs, conditionMessage(e))
	}
	return msgs
}

func conditionMessage(err error) string {
	var be *fault.BridgeError
	if !errors.As(err, &be) {
		return err.Error()
	}
	msg := be.Message()
	if _, rest, ok := strings.Cut(msg, "]: "); ok && strings.HasPrefix(msg, "conditions[") {
		msg = rest
	}
	if cause := be.Unwrap(); cause != nil {
		msg = fmt.Sprintf("%s: %v", msg, cause)
	}
	return msg
}

// routing converts the condition into core/routing's form.
func (c Condition) routing() routing.Condition {
	return routing.Condition{Field: c.Field, Operator: routing.Operator(c.Operator), Value: c.Value}
}
