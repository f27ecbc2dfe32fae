package config

// notSupportedYet refuses the keys that are parsed and documented but that
// nothing acts on yet. Clustering itself runs (leases, fenced draining,
// failover, sources that connect after the lease); what is refused is the
// part of it not built yet: deferring the connect of an MQTT source (its
// session, not only its receiver, would have to wait for the lease),
// managed subscriptions and unfenced direct_hold. Accepting them would let a configuration promise a
// behaviour that does not happen.
func (v *validator) notSupportedYet() {
	if v.f.Stores.ManagedSubscriptions != nil {
		v.addf("stores.managed_subscriptions", "not supported yet: nothing reads managed subscriptions; remove the store")
	}
	for i := range v.f.Routes {
		r := &v.f.Routes[i]
		path := index("routes", i)
		if r.Policy.AllowUnfenced {
			v.addf(join(join(path, "policy"), "allow_unfenced"), "not supported yet: unfenced direct_hold on a shared consumer source; remove the key")
		}
		s := r.Session
		if s == nil {
			continue
		}
		sp := join(path, "session")
		if (s.ConnectAfterLease == nil || *s.ConnectAfterLease) && v.receiverType(r.ReceiverID) == "mqtt" {
			v.addf(join(sp, "connect_after_lease"), "not supported yet for an MQTT source: its session connects, and resumes its subscriptions, before the lease is won; use a $share/ subscription and set connect_after_lease: false")
		}
	}
}

// receiverType returns the type of the receiver id, or "".
func (v *validator) receiverType(id string) string {
	for _, rc := range v.f.Receivers {
		if rc.ID == id {
			return rc.Type
		}
	}
	return ""
}
