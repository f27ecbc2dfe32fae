package routing

import (
	"fmt"
	"sort"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// rulesPicker tries its rules in order. All rules share one path table, so
// the payload is scanned at most once per message.
type rulesPicker struct {
	rules []compiledRule
	def   []ports.DispatchPlan
	miss  error
}

type compiledRule struct {
	m     *Matcher
	plans []ports.DispatchPlan
}

func buildRules(spec ResolverSpec, byID map[string][]ports.DispatchPlan, def []ports.DispatchPlan) (*rulesPicker, []error) {
	var errs []error
	if len(spec.Rules) == 0 && spec.DefaultBinding == "" {
		errs = append(errs, invalidf("resolver type %q requires at least one rule or a default_binding", TypeRules))
	}
	tab := newPathTable()
	p := &rulesPicker{
		def:  def,
		miss: fault.ErrNotFound.WithMessage("resolver: no rule matched the message and no default_binding is set"),
	}
	for i, r := range spec.Rules {
		plans, ok := byID[r.BindingID]
		switch {
		case r.BindingID == "":
			errs = append(errs, invalidf("resolver.rules[%d]: binding_id is required", i))
		case !ok:
			errs = append(errs, invalidf("resolver.rules[%d]: binding_id %q not found in route bindings", i, r.BindingID))
		}
		m, merrs := compileConditions(r.Match, tab, fmt.Sprintf("resolver.rules[%d].match", i))
		errs = append(errs, merrs...)
		p.rules = append(p.rules, compiledRule{m: m, plans: plans})
	}
	return p, errs
}

func (p *rulesPicker) pick(env *messaging.Envelope) ([]ports.DispatchPlan, error) {
	in := NewInput(env)
	for i := range p.rules {
		if p.rules[i].m.Match(&in) {
			return p.rules[i].plans, nil
		}
	}
	if p.def != nil {
		return p.def, nil
	}
	return nil, p.miss
}

// headerPicker looks the value of one header up in a map.
type headerPicker struct {
	key  string
	m    map[string][]ports.DispatchPlan
	def  []ports.DispatchPlan
	miss error
}

func buildHeaderMap(spec ResolverSpec, byID map[string][]ports.DispatchPlan, def []ports.DispatchPlan) (*headerPicker, []error) {
	var errs []error
	if spec.HeaderKey == "" {
		errs = append(errs, invalidf("resolver.header_key is required for header_map type"))
	}
	if len(spec.HeaderMap) == 0 {
		errs = append(errs, invalidf("resolver.header_map must have at least one entry"))
	}
	p := &headerPicker{
		key:  spec.HeaderKey,
		m:    make(map[string][]ports.DispatchPlan, len(spec.HeaderMap)),
		def:  def,
		miss: fault.ErrNotFound.WithMessage(fmt.Sprintf("resolver: header %q matches no header_map entry and no default_binding is set", spec.HeaderKey)),
	}
	keys := make([]string, 0, len(spec.HeaderMap))
	for k := range spec.HeaderMap {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic error order
	for _, k := range keys {
		id := spec.HeaderMap[k]
		plans, ok := byID[id]
		if !ok {
			errs = append(errs, invalidf("resolver.header_map[%q] references unknown binding %q", k, id))
			continue
		}
		p.m[k] = plans
	}
	return p, errs
}

func (p *headerPicker) pick(env *messaging.Envelope) ([]ports.DispatchPlan, error) {
	if env != nil {
		var plans []ports.DispatchPlan
		var ok bool
		switch v := env.Headers[p.key].(type) {
		case string:
			plans, ok = p.m[v]
		case []byte:
			plans, ok = p.m[string(v)]
		case nil, bool:
		default:
			if g, isNum := toGoNum(v); isNum {
				var buf numBuf
				if lit, _, valid := g.format(&buf); valid && lit != nil {
					plans, ok = p.m[string(lit)]
				}
			}
		}
		if ok {
			return plans, nil
		}
	}
	if p.def != nil {
		return p.def, nil
	}
	return nil, p.miss
}
