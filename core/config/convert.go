package config

import (
	"maps"
	"slices"

	"github.com/gobridge-oss/gobridge/core/routing"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// RuntimePolicy converts the route's policy into the runtime's, including
// the outbox policy. Zero values stay zero: the runtime applies the same
// defaults.
func (r *Route) RuntimePolicy() runtime.Policy {
	p := r.Policy
	var jitter *float64
	if p.Backoff.Jitter != nil {
		jitter = ptr(*p.Backoff.Jitter)
	}
	return runtime.Policy{
		MaxInFlight:        p.MaxInFlight,
		SendTimeout:        p.SendTimeout,
		OnExpired:          runtime.Action(p.OnExpired),
		OnPermanentFailure: runtime.Action(p.OnPermanentFailure),
		OnFiltered:         runtime.Action(p.OnFiltered),
		Backoff: runtime.Backoff{
			Initial:    p.Backoff.InitialInterval,
			Max:        p.Backoff.MaxInterval,
			Multiplier: p.Backoff.Multiplier,
			Jitter:     jitter,
		},
		MaxReplayAttempts: p.MaxReplayAttempts,
		ReplayBudget:      p.ReplayBudget,
		AllowRetryDrop:    p.AllowRetryDrop,
		Outbox:            r.RuntimeOutboxPolicy(),
	}
}

// RuntimeOutboxPolicy converts the outbox settings of the route (policy
// depth limits and the session block's drain settings) into the runtime's.
func (r *Route) RuntimeOutboxPolicy() runtime.OutboxPolicy {
	o := runtime.OutboxPolicy{
		MaxDepth:      r.Policy.MaxOutboxDepth,
		DepthCacheTTL: r.Policy.DepthCacheTTL,
	}
	s := r.Session
	if s == nil {
		return o
	}
	o.Interval = s.DrainInterval
	o.BatchSize = s.DrainBatchSize
	o.MaxBatchSize = s.DrainMaxBatchSize
	o.MaxConcurrency = s.DrainMaxConcurrency
	if ds := s.DrainStrategy; ds != nil {
		o.Strategy = runtime.DrainStrategy{
			Type:        runtime.DrainStrategyType(ds.Type),
			Interval:    ds.Interval,
			MinInterval: ds.MinInterval,
			MaxInterval: ds.MaxInterval,
			Multiplier:  ds.Multiplier,
		}
	}
	return o
}

// RuntimeDeliveryMode converts the delivery mode (direct_hold when unset).
func (r *Route) RuntimeDeliveryMode() runtime.DeliveryMode {
	return runtime.DeliveryMode(orDefault(r.DeliveryMode, DeliveryDirectHold))
}

// RuntimeDispatchMode converts the dispatch mode (single when unset).
func (r *Route) RuntimeDispatchMode() runtime.DispatchMode {
	return runtime.DispatchMode(orDefault(r.DispatchMode, DispatchSingle))
}

// RoutingSpec converts the resolver into core/routing's spec. A nil
// resolver gives the zero spec (static on the first binding).
func (rs *Resolver) RoutingSpec() routing.ResolverSpec {
	if rs == nil {
		return routing.ResolverSpec{}
	}
	spec := routing.ResolverSpec{
		Type:           rs.Type,
		DefaultBinding: rs.DefaultBinding,
		HeaderKey:      rs.HeaderKey,
		HeaderMap:      maps.Clone(rs.HeaderMap),
	}
	for _, rule := range rs.Rules {
		rr := routing.Rule{BindingID: rule.BindingID}
		for _, c := range rule.Match {
			rr.Match = append(rr.Match, c.routing())
		}
		spec.Rules = append(spec.Rules, rr)
	}
	return spec
}

// RoutingBindings returns the route's bindings, with their addresses, in
// core/routing's form, for routing.NewResolver. Unknown IDs are skipped.
func (f *File) RoutingBindings(r *Route) []routing.Binding {
	out := make([]routing.Binding, 0, len(r.Bindings))
	for _, id := range r.Bindings {
		i := slices.IndexFunc(f.Bindings, func(b Binding) bool { return b.ID == id })
		if i >= 0 {
			out = append(out, routing.Binding{ID: id, Address: f.Bindings[i].Address})
		}
	}
	return out
}
