package config

import (
	"strings"
	"time"
)

// clusteredMQTT applies the clustered-deployment rule for MQTT receivers:
// every instance of a cluster runs every route, so an MQTT subscription is
// consumed by all of them unless it is a shared subscription ($share/...)
// or its routes hold an exclusive session (a route session block). The
// topics are read from the receiver's settings.subscriptions[].topic.
func (v *validator) clusteredMQTT() {
	if v.f.Bridge.Deployment != DeploymentClustered {
		return
	}
	v.clusteredStores()
	v.clusteredDraining()
	exclusive := map[string]bool{}
	for _, r := range v.f.Routes {
		if r.Session != nil {
			exclusive[r.ReceiverID] = true
		}
	}
	for i, rc := range v.f.Receivers {
		if rc.Type != "mqtt" || exclusive[rc.ID] {
			continue
		}
		subs, _ := rc.Settings["subscriptions"].([]any)
		for j, s := range subs {
			m, _ := s.(map[string]any)
			topic, _ := m["topic"].(string)
			if topic != "" && !strings.HasPrefix(topic, "$share/") {
				path := join(index(join(join(index("receivers", i), "settings"), "subscriptions"), j), "topic")
				v.addf(path, "requires $share/ topic prefix or exclusive session")
			}
		}
	}
}

// clusteredStores warns about store types that a cluster's instances cannot
// all share: a memory store lives in one process, a SQLite file on one
// host.
func (v *validator) clusteredStores() {
	s := v.f.Stores
	for _, st := range []struct {
		key   string
		store *Store
	}{{"outbox", s.Outbox}, {"dlq", s.DLQ}, {"lease", s.Lease}, {"managed_subscriptions", s.ManagedSubscriptions}} {
		if st.store == nil {
			continue
		}
		path := join(join("stores", st.key), "type")
		switch st.store.Type {
		case "memory":
			v.warnf(path, "a memory store is local to one process; the instances of a clustered deployment do not share it")
		case "sqlite":
			v.warnf(path, "a sqlite store is shared only by the processes of one host (with shared: true); instances on other hosts cannot use it")
		}
	}
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
