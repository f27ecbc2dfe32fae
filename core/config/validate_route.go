package config

import (
	"github.com/gobridge-oss/gobridge/core/runtime"
)

func (v *validator) routes() {
	ids := map[string]int{}
	for i := range v.f.Routes {
		r := &v.f.Routes[i]
		path := index("routes", i)
		v.uniqueID(path, r.ID, ids, i)
		v.ref(path, "receiver_id", r.ReceiverID, "receivers", true)
		if v.oneOf(join(path, "delivery_mode"), r.DeliveryMode, DeliveryDirectHold, DeliverySharedOutbox) &&
			r.DeliveryMode == DeliverySharedOutbox && v.f.Stores.Outbox == nil {
			v.addf(join(path, "delivery_mode"), "shared_outbox requires stores.outbox")
		}
		v.oneOf(join(path, "dispatch_mode"), r.DispatchMode, DispatchSingle, DispatchFanOut)
		v.routeBindings(path, r)
		v.policy(join(path, "policy"), r)
		if r.Resolver != nil {
			v.resolver(join(path, "resolver"), r)
		}
		if r.Session != nil {
			v.session(join(path, "session"), r)
		}
		if r.TrustBridgeHeaders {
			v.warnf(join(path, "trust_bridge_headers"), "inbound x-bridge.* headers are trusted: only safe when the receiver is fed exclusively by another gobridge")
		}
	}
}

func (v *validator) routeBindings(path string, r *Route) {
	if len(r.Bindings) == 0 {
		v.addf(join(path, "bindings"), "at least one binding is required")
	}
	seen := map[string]bool{}
	for j, id := range r.Bindings {
		bp := index(join(path, "bindings"), j)
		_, known := v.ids["bindings"][id]
		switch {
		case id == "":
			v.addf(bp, "binding id is required")
		case !known:
			v.addf(bp, "binding %q not found in bindings", id)
		case seen[id]:
			v.addf(bp, "duplicate binding %q", id)
		}
		seen[id] = true
	}
}

// policy checks one route's policy. Zero values count as defaults.
func (v *validator) policy(path string, r *Route) {
	p := r.Policy
	at := func(k string) string { return join(path, k) }
	if p.MaxInFlight < 0 || p.MaxInFlight > runtime.MaxMaxInFlight {
		v.addf(at("max_in_flight"), "must be within [1,%d], got %d", runtime.MaxMaxInFlight, p.MaxInFlight)
	}
	notNegative(v, at("max_replay_attempts"), p.MaxReplayAttempts)
	notNegative(v, at("max_outbox_depth"), p.MaxOutboxDepth)
	notNegative(v, at("replay_budget"), p.ReplayBudget)
	notNegative(v, at("send_timeout"), p.SendTimeout)
	notNegative(v, at("depth_cache_ttl"), p.DepthCacheTTL)
	mode := orDefault(r.DeliveryMode, DeliveryDirectHold)
	if v.oneOf(at("ack_after"), p.AckAfter, AckTargetAccept, AckOutboxPersist) {
		switch {
		case p.AckAfter == AckOutboxPersist && mode == DeliveryDirectHold:
			v.addf(at("ack_after"), "ack_after %q requires delivery_mode shared_outbox; direct_hold acknowledges on target_accept", p.AckAfter)
		case p.AckAfter == AckTargetAccept && mode == DeliverySharedOutbox:
			v.addf(at("ack_after"), "ack_after %q does not fit delivery_mode shared_outbox, which acknowledges on outbox_persist", p.AckAfter)
		}
	}
	actions := []struct{ key, set, def string }{
		{"on_expired", p.OnExpired, ActionDLQ},
		{"on_permanent_failure", p.OnPermanentFailure, ActionDLQ},
		{"on_filtered", p.OnFiltered, ActionDrop},
	}
	dlqActions := 0
	for _, a := range actions {
		if !v.oneOf(at(a.key), a.set, ActionDrop, ActionDLQ) {
			continue
		}
		if orDefault(a.set, a.def) != ActionDLQ {
			continue
		}
		dlqActions++
		if v.f.Stores.DLQ == nil {
			v.addf(at(a.key), "dlq requires stores.dlq (configure a DLQ store or set %s: drop)", a.key)
		}
	}
	v.backoff(at("backoff"), p.Backoff)
	if p.AllowUnfenced {
		v.warnf(at("allow_unfenced"), "direct_hold on a shared consumer source runs without fencing: two instances may deliver the same message")
	}
	if p.AllowRetryDrop && v.f.Stores.DLQ == nil {
		v.warnf(at("allow_retry_drop"), "without a DLQ store a message from a source that cannot retry is dropped on its first transient failure")
	}
	if v.f.Stores.DLQ == nil && dlqActions == 0 {
		v.warnf(path, "no DLQ store: expired, failed and filtered messages are dropped and only counted")
	}
}

func (v *validator) backoff(path string, b Backoff) {
	notNegative(v, join(path, "initial_interval"), b.InitialInterval)
	notNegative(v, join(path, "max_interval"), b.MaxInterval)
	if b.Multiplier != 0 && !(b.Multiplier >= 1) { // NaN fails too
		v.addf(join(path, "multiplier"), "must be >= 1, got %g", b.Multiplier)
	}
	if b.Jitter != nil && !(*b.Jitter >= 0 && *b.Jitter <= 1) {
		v.addf(join(path, "jitter"), "must be within [0,1], got %g", *b.Jitter)
	}
	if b.InitialInterval > 0 && b.MaxInterval > 0 && b.InitialInterval > b.MaxInterval {
		v.warnf(join(path, "initial_interval"), "exceeds max_interval (%s > %s): every retry waits max_interval", b.InitialInterval, b.MaxInterval)
	}
}

// notNegative reports a negative number or duration.
func notNegative[T ~int | ~int64](v *validator, path string, n T) {
	if n < 0 {
		v.addf(path, "must not be negative, got %v", n)
	}
}
