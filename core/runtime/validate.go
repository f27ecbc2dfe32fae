package runtime

import (
	"errors"
	"fmt"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// validate checks every route and returns all problems joined, each
// prefixed with the route's position and field.
func validate(routes []Route, opts Options) error {
	var errs []error
	add := func(i int, field, format string, args ...any) {
		msg := fmt.Sprintf("routes[%d].%s: %s", i, field, fmt.Sprintf(format, args...))
		errs = append(errs, fault.ErrInvalidConfig.WithMessage(msg))
	}
	if len(routes) == 0 {
		errs = append(errs, fault.ErrInvalidConfig.WithMessage("at least one route is required"))
	}
	seen := map[string]bool{}
	for i, r := range routes {
		if r.ID == "" {
			add(i, "id", "is required")
		} else if seen[r.ID] {
			add(i, "id", "duplicate id %q", r.ID)
		}
		seen[r.ID] = true
		if r.Receiver == nil {
			add(i, "receiver_id", "no receiver given")
		}
		switch r.DeliveryMode {
		case "", DirectHold:
		case SharedOutbox:
			if opts.Outbox == nil {
				add(i, "delivery_mode", "shared_outbox requires stores.outbox")
			}
			validateOutbox(i, r.Policy.Outbox, add)
		default:
			add(i, "delivery_mode", "%q is invalid; must be one of: direct_hold, shared_outbox", r.DeliveryMode)
		}
		switch r.DispatchMode {
		case "", Single, FanOut:
		default:
			add(i, "dispatch_mode", "%q is invalid; must be one of: single, fan_out", r.DispatchMode)
		}
		validateBindings(i, r.Bindings, add)
		for j, p := range r.Processors {
			if p == nil {
				add(i, fmt.Sprintf("processors[%d]", j), "is nil")
			}
		}
		validatePolicy(i, r, opts, add)
	}
	return errors.Join(errs...)
}

func validateBindings(i int, bs []Binding, add func(int, string, string, ...any)) {
	if len(bs) == 0 {
		add(i, "bindings", "at least one binding is required")
	}
	ids := map[string]bool{}
	for j, b := range bs {
		field := fmt.Sprintf("bindings[%d]", j)
		if b.ID == "" {
			add(i, field+".id", "is required")
		} else if ids[b.ID] {
			add(i, field+".id", "duplicate id %q", b.ID)
		}
		ids[b.ID] = true
		if b.Sender == nil {
			add(i, field+".sender_id", "no sender given for binding %q", b.ID)
		}
		validateDelay(i, field, b, add)
	}
}

// validateDelay refuses a delay the binding's sender cannot honour: a
// message must never reach its consumers earlier than the user asked.
func validateDelay(i int, field string, b Binding, add func(int, string, string, ...any)) {
	switch {
	case b.DeliverAfter < 0:
		add(i, field+".deliver_after", "must not be negative, got %s", b.DeliverAfter)
		return
	case b.DeliverAfter == 0 || b.Sender == nil:
		return
	}
	d, ok := unwrapSender(b.Sender).(ports.Delayer)
	if !ok {
		add(i, field+".deliver_after", "sender %q cannot delay messages: not supported yet by its transport", b.SenderID)
		return
	}
	limit, err := d.DelayLimit(b.Address)
	switch {
	case err != nil:
		add(i, field+".deliver_after", "sender %q cannot delay messages to %q: %v", b.SenderID, b.Address, err)
	case limit > 0 && b.DeliverAfter > limit:
		add(i, field+".deliver_after", "%s exceeds the %s that sender %q can delay a message", b.DeliverAfter, limit, b.SenderID)
	}
}

// unwrapSender returns the sender a wrapper (such as the bridge's shared
// senders) stands for; a wrapper says so with an Unwrap method.
func unwrapSender(s ports.Sender) ports.Sender {
	for {
		u, ok := s.(interface{ Unwrap() ports.Sender })
		if !ok {
			return s
		}
		s = u.Unwrap()
	}
}

func validatePolicy(i int, r Route, opts Options, add func(int, string, string, ...any)) {
	p := r.Policy
	if p.MaxInFlight < 0 || p.MaxInFlight > MaxMaxInFlight {
		add(i, "policy.max_in_flight", "must be within [0,%d], got %d", MaxMaxInFlight, p.MaxInFlight)
	}
	if p.SendTimeout < 0 {
		add(i, "policy.send_timeout", "must not be negative, got %s", p.SendTimeout)
	}
	if p.MaxReplayAttempts < 0 {
		add(i, "policy.max_replay_attempts", "must not be negative, got %d", p.MaxReplayAttempts)
	}
	if p.ReplayBudget < 0 {
		add(i, "policy.replay_budget", "must not be negative, got %s", p.ReplayBudget)
	}
	b := p.Backoff
	if b.Initial < 0 {
		add(i, "policy.backoff.initial_interval", "must not be negative, got %s", b.Initial)
	}
	if b.Max < 0 {
		add(i, "policy.backoff.max_interval", "must not be negative, got %s", b.Max)
	}
	if b.Multiplier != 0 && !(b.Multiplier >= 1) { // NaN fails too
		add(i, "policy.backoff.multiplier", "must be >= 1, got %g", b.Multiplier)
	}
	if b.Jitter != nil && !(*b.Jitter >= 0 && *b.Jitter <= 1) { // NaN fails too
		add(i, "policy.backoff.jitter", "must be within [0,1], got %g", *b.Jitter)
	}
	full := p.withDefaults()
	actions := []struct {
		field    string
		set, eff Action // as configured, and after defaults
	}{
		{"policy.on_expired", p.OnExpired, full.OnExpired},
		{"policy.on_permanent_failure", p.OnPermanentFailure, full.OnPermanentFailure},
		{"policy.on_filtered", p.OnFiltered, full.OnFiltered},
	}
	for _, a := range actions {
		if a.set != "" && a.set != Drop && a.set != DLQ {
			add(i, a.field, "%q is invalid; must be one of: drop, dlq", a.set)
			continue
		}
		if a.eff == DLQ && opts.DLQ == nil {
			add(i, a.field, "dlq requires stores.dlq (configure a DLQ store or set %s: drop)", a.field)
		}
	}
	if r.Receiver != nil && !capabilities(r.Receiver).Retry && opts.DLQ == nil && !p.AllowRetryDrop {
		add(i, "receiver_id", "the receiver cannot retry and no DLQ store is configured; configure stores.dlq or set policy.allow_retry_drop: true")
	}
}

func capabilities(r ports.Receiver) ports.ReceiverCapabilities {
	if c, ok := r.(ports.CapabilityReporter); ok {
		return c.Capabilities()
	}
	return ports.ReceiverCapabilities{Retry: true, RedeliversUnsettled: true}
}
