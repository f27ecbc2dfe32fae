package config

import (
	"os"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// clustered applies the rules of a clustered deployment that need no
// plugin knowledge. A transport's own rules (MQTT's $share/ subscriptions)
// are its receiver factory's admission check.
func (v *validator) clustered() {
	if v.f.Bridge.Deployment != DeploymentClustered {
		return
	}
	v.clusteredDraining()
	v.clusteredInstance(os.Hostname)
	v.clusteredClaims()
}

// clusteredDraining requires what leased draining needs: every instance
// of a cluster drains the shared outbox only while it holds the lease of
// the partition, so shared_outbox routes need a lease store.
func (v *validator) clusteredDraining() {
	if v.f.Stores.Lease != nil {
		return
	}
	for i, r := range v.f.Routes {
		if r.DeliveryMode == DeliverySharedOutbox {
			v.addf(join(index("routes", i), "delivery_mode"), "shared_outbox on a clustered deployment requires stores.lease: each partition is drained by the instance that holds its lease")
		}
	}
}

// sessionsAgree requires the routes that name one session_id to run its
// lease with one cadence: one lease manager keeps a session's lease for
// all of them, whatever the order of the routes.
func (v *validator) sessionsAgree() {
	first := map[string]int{}
	for i, r := range v.f.Routes {
		s := r.Session
		if s == nil || s.SessionID == "" {
			continue
		}
		j, seen := first[s.SessionID]
		if !seen {
			first[s.SessionID] = i
			continue
		}
		if a, b := leaseTiming(v.f.Routes[j].Session), leaseTiming(s); a != b {
			v.addf(join(index("routes", i), "session"), "routes[%d] runs session %q with another lease timing (lease_ttl, renew_interval, lease_renew_jitter, max_renew_fails, step_down_grace, renew_call_timeout, acquire_poll_interval must match)", j, s.SessionID)
		}
	}
}

// leaseTiming is the part of a session block its lease manager runs by,
// with defaults applied.
func leaseTiming(s *RouteSession) [7]time.Duration {
	return [7]time.Duration{orDefault(s.LeaseTTL, DefaultLeaseTTL), s.RenewInterval, s.LeaseRenewJitter,
		time.Duration(orDefault(s.MaxRenewFails, DefaultMaxRenewFails)), orDefault(s.StepDownGrace, DefaultStepDownGrace),
		s.RenewCallTimeout, s.AcquirePollInterval}
}

// clusteredInstance warns when bridge.instance_id is left to its default,
// the host name (or empty, when Validate runs without defaults or the
// host name could not be read). It is the lease owner identity, so two
// instances started from one file on one host would pass for one owner.
// An instance_id set to the host name on purpose is warned about too: the
// configuration cannot tell the two apart.
func (v *validator) clusteredInstance(hostname func() (string, error)) {
	const fix = "set it per instance, for example instance_id: ${env:INSTANCE_ID} or the variable GOBRIDGE_BRIDGE__INSTANCE_ID"
	id := v.f.Bridge.InstanceID
	if id == "" {
		v.warnf("bridge.instance_id", "is empty, so it defaults to the host name: instances of a clustered deployment on one host would share one lease owner identity; %s", fix)
		return
	}
	if h, err := hostname(); err == nil && h == id {
		v.warnf("bridge.instance_id", "is the host name %q (the default): instances of a clustered deployment on one host would share one lease owner identity; %s (fine if each instance runs on its own host)", id, fix)
	}
}

// clusteredClaims warns when the outbox takes over a claim sooner than a
// session's owner may still be sending it: during step_down_grace the
// stepping-down owner finishes the batch in hand, and a claim older than
// the store's stale_claim_age may meanwhile be claimed again by the next
// owner, which delivers it a second time. stale_claim_age is read from
// stores.outbox.settings, with the ports default when it is absent; a
// value that is not a duration is left to the store plugin to report.
func (v *validator) clusteredClaims() {
	o := v.f.Stores.Outbox
	if o == nil {
		return
	}
	age, ok := staleClaimAge(o.Settings)
	if !ok {
		return
	}
	for i, r := range v.f.Routes {
		if r.Session == nil || r.Session.StepDownGrace < 0 {
			continue
		}
		if grace := orDefault(r.Session.StepDownGrace, DefaultStepDownGrace); age < grace {
			v.warnf(join(join(index("routes", i), "session"), "step_down_grace"),
				"%s is longer than the outbox's stale_claim_age %s: a batch still in hand during the step-down grace can be claimed again as stale and delivered twice; raise stores.outbox.settings.stale_claim_age to at least %s or lower step_down_grace",
				grace, age, grace)
		}
	}
}

// staleClaimAge reads stale_claim_age from a store's settings: absent or
// zero is ports.DefaultStaleClaimAge, as in the stores; ok is false when
// the value is not a duration or is negative.
func staleClaimAge(settings map[string]any) (time.Duration, bool) {
	raw, set := settings["stale_claim_age"]
	if !set {
		return ports.DefaultStaleClaimAge, true
	}
	var d time.Duration
	switch x := raw.(type) {
	case time.Duration:
		d = x
	case string:
		p, err := time.ParseDuration(x)
		if err != nil {
			return 0, false
		}
		d = p
	default:
		return 0, false
	}
	return orDefault(d, ports.DefaultStaleClaimAge), d >= 0
}
