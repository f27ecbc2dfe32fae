package config

import (
	"fmt"
	"strings"
	"time"
)

// session checks a route's session block: references, drain settings and
// the lease cadence.
func (v *validator) session(path string, r *Route) {
	s := r.Session
	at := func(k string) string { return join(path, k) }
	if v.f.Stores.Lease == nil {
		v.addf(path, "exclusive session requires stores.lease")
	}
	okSession := v.ref(path, "session_id", s.SessionID, "sessions", true)
	if v.ref(path, "sender_id", s.SenderID, "senders", true) && okSession {
		snd := v.f.Senders[v.ids["senders"][s.SenderID]]
		if snd.SessionID != "" && snd.SessionID != s.SessionID {
			v.addf(at("sender_id"), "sender %q runs on session %q, not on session %q", s.SenderID, snd.SessionID, s.SessionID)
		}
	}
	v.drain(path, s)
	v.cadence(path, s)
	if s.BrokerHealthStepDown != nil && !s.BrokerHealthStepDown.Off && s.BrokerHealthStepDown.Duration <= 0 {
		v.addf(at("broker_health_step_down"), "must be positive or off, got %s", s.BrokerHealthStepDown.Duration)
	}
	notNegative(v, at("startup_allowance"), s.StartupAllowance)
	if s.StartupAllowance > MaxStartupAllowance {
		v.addf(at("startup_allowance"), "must be at most %s, got %s", MaxStartupAllowance, s.StartupAllowance)
	}
	if s.FailoverSLO != nil {
		v.failover(path, s)
	}
}

func (v *validator) drain(path string, s *RouteSession) {
	at := func(k string) string { return join(path, k) }
	if s.DrainInterval != 0 && s.DrainStrategy != nil {
		v.addf(at("drain_interval"), "drain_strategy and drain_interval are mutually exclusive")
	}
	notNegative(v, at("drain_interval"), s.DrainInterval)
	notNegative(v, at("drain_batch_size"), s.DrainBatchSize)
	notNegative(v, at("drain_max_batch_size"), s.DrainMaxBatchSize)
	notNegative(v, at("drain_max_concurrency"), s.DrainMaxConcurrency)
	if s.DrainBatchSize > 0 && s.DrainMaxBatchSize > 0 && s.DrainBatchSize > s.DrainMaxBatchSize {
		v.addf(at("drain_max_batch_size"), "must be at least drain_batch_size (%d < %d)", s.DrainMaxBatchSize, s.DrainBatchSize)
	}
	ds := s.DrainStrategy
	if ds == nil {
		return
	}
	sp := at("drain_strategy")
	switch ds.Type {
	case "":
		v.addf(join(sp, "type"), "type is required")
	case DrainFixedPoll:
		if ds.Interval <= 0 {
			v.addf(join(sp, "interval"), "must be positive for fixed_poll, got %s", ds.Interval)
		}
	case DrainAdaptiveBackoff:
	default:
		v.addf(join(sp, "type"), "%q is invalid; must be one of: fixed_poll, adaptive_backoff", ds.Type)
	}
	notNegative(v, join(sp, "min_interval"), ds.MinInterval)
	notNegative(v, join(sp, "max_interval"), ds.MaxInterval)
	if ds.MinInterval > 0 && ds.MaxInterval > 0 && ds.MinInterval > ds.MaxInterval {
		v.addf(join(sp, "min_interval"), "must not exceed max_interval (%s > %s)", ds.MinInterval, ds.MaxInterval)
	}
	if ds.Multiplier != 0 && !(ds.Multiplier > 1) {
		v.addf(join(sp, "multiplier"), "must be > 1, got %g", ds.Multiplier)
	}
}

// cadence checks the lease timing: the 5s lease floor, the split-brain
// inequality for a pinned renew_interval, the derived-cadence clamp and the
// 250ms floor of the resolved intervals.
func (v *validator) cadence(path string, s *RouteSession) {
	at := func(k string) string { return join(path, k) }
	bad := false
	for _, d := range []struct {
		key string
		val time.Duration
	}{{"lease_ttl", s.LeaseTTL}, {"renew_interval", s.RenewInterval}, {"lease_renew_jitter", s.LeaseRenewJitter},
		{"step_down_grace", s.StepDownGrace}, {"renew_call_timeout", s.RenewCallTimeout}, {"acquire_poll_interval", s.AcquirePollInterval}} {
		if d.val < 0 {
			v.addf(at(d.key), "must not be negative, got %s", d.val)
			bad = true
		}
	}
	if s.MaxRenewFails < 0 {
		v.addf(at("max_renew_fails"), "must be at least 1, got %d", s.MaxRenewFails)
		bad = true
	}
	if ttl := orDefault(s.LeaseTTL, DefaultLeaseTTL); ttl > 0 && ttl < MinLeaseTTL {
		v.addf(at("lease_ttl"), "must be at least %s, got %s", MinLeaseTTL, ttl)
		bad = true
	}
	if bad {
		return
	}
	c, err := s.Cadence()
	if err != nil {
		v.addf(at("max_renew_fails"), "%s", err.Error())
		return
	}
	if c.Pinned {
		if c.RenewInterval < MinCadence {
			v.addf(at("renew_interval"), "must be at least %s, got %s", MinCadence, c.RenewInterval)
		}
		if span := c.RenewSpan(); span >= c.LeaseTTL {
			v.addf(at("renew_interval"), "(renew_interval + lease_renew_jitter/2 + renew_call_timeout) × max_renew_fails must be below lease_ttl: (%s + %s/2 + %s) × %d = %s >= %s",
				c.RenewInterval, c.RenewJitter, c.RenewCallTimeout, c.MaxRenewFails, span, c.LeaseTTL)
		}
	}
	if c.AcquirePollInterval < MinCadence {
		v.addf(at("acquire_poll_interval"), "must be at least %s, got %s", MinCadence, c.AcquirePollInterval)
	}
	if c.JitterTrimmed {
		v.warnf(at("lease_renew_jitter"), "trimmed to %s so the renewals fit lease_ttl %s", c.RenewJitter, c.LeaseTTL)
	}
}

// failover checks a declared failover objective. The owner-death budget is
// lease_ttl + acquire_poll_interval + startup_allowance; the broker-outage
// budget is broker_health_step_down + step_down_grace +
// acquire_poll_interval + startup_allowance (the owner releases the lease
// after its grace, and a standby picks it up at its next poll). Both must fit failover_slo; the exact boundary passes.
func (v *validator) failover(path string, s *RouteSession) {
	at := func(k string) string { return join(path, k) }
	slo := *s.FailoverSLO
	if slo <= 0 {
		v.addf(at("failover_slo"), "must be positive, got %s", slo)
		return
	}
	if s.BrokerHealthStepDown == nil {
		v.addf(at("broker_health_step_down"), "broker_health_step_down is required when failover_slo is declared (a duration, or off)")
	}
	c, err := s.Cadence()
	if err != nil {
		return // reported by cadence
	}
	death := []budgetTerm{{"lease_ttl", c.LeaseTTL}, {"acquire_poll_interval", c.AcquirePollInterval}, {"startup_allowance", s.StartupAllowance}}
	if d := budgetSum(death); d > slo {
		v.addf(at("failover_slo"), "owner death can take %s = %s, more than failover_slo %s: %s", budgetTerms(death), d, slo, budgetRemedy(death))
	}
	if b := s.BrokerHealthStepDown; b != nil && !b.Off && b.Duration > 0 {
		outage := []budgetTerm{{"broker_health_step_down", b.Duration}, {"step_down_grace", orDefault(s.StepDownGrace, DefaultStepDownGrace)},
			{"acquire_poll_interval", c.AcquirePollInterval}, {"startup_allowance", s.StartupAllowance}}
		if d := budgetSum(outage); d > slo {
			v.addf(at("failover_slo"), "a broker outage can take %s = %s, more than failover_slo %s: %s", budgetTerms(outage), d, slo, budgetRemedy(outage))
		}
	}
}

// budgetTerm is one setting of a failover budget with its resolved value.
type budgetTerm struct {
	key string
	val time.Duration
}

func budgetSum(ts []budgetTerm) time.Duration {
	var d time.Duration
	for _, t := range ts {
		d += t.val
	}
	return d
}

// budgetTerms spells a budget out: "lease_ttl (6m0s) + acquire_poll_interval (5s) + ...".
func budgetTerms(ts []budgetTerm) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = fmt.Sprintf("%s (%s)", t.key, t.val)
	}
	return strings.Join(parts, " + ")
}

// budgetRemedy names the settings that shorten a budget (those above zero) and
// the objective that can be raised instead.
func budgetRemedy(ts []budgetTerm) string {
	var keys []string
	for _, t := range ts {
		if t.val > 0 {
			keys = append(keys, t.key)
		}
	}
	switch len(keys) {
	case 0:
		return "raise failover_slo"
	case 1:
		return "lower " + keys[0] + ", or raise failover_slo"
	}
	return "lower " + strings.Join(keys[:len(keys)-1], ", ") + " or " + keys[len(keys)-1] + ", or raise failover_slo"
}
