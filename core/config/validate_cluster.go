package config

import "strings"

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
// share: each instance would have its own outbox, DLQ or lease.
func (v *validator) clusteredStores() {
	s := v.f.Stores
	for _, st := range []struct {
		key   string
		store *Store
	}{{"outbox", s.Outbox}, {"dlq", s.DLQ}, {"lease", s.Lease}, {"managed_subscriptions", s.ManagedSubscriptions}} {
		if st.store != nil && (st.store.Type == "memory" || st.store.Type == "sqlite") {
			v.warnf(join(join("stores", st.key), "type"), "a %s store is local to one instance; the instances of a clustered deployment do not share it", st.store.Type)
		}
	}
}
