package config

// notSupportedYet refuses the keys that are parsed and documented but that
// nothing acts on yet: clustered deployment and everything it needs
// (leases, route session blocks, unfenced direct_hold, managed
// subscriptions). Accepting them would let a configuration promise a
// failover or a fencing that does not happen.
func (v *validator) notSupportedYet() {
	const why = "not supported yet: clustering (leases, fencing, failover) is not implemented"
	if v.f.Bridge.Deployment == DeploymentClustered {
		v.addf("bridge.deployment", "%q is %s; use %q", DeploymentClustered, why, DeploymentStandalone)
	}
	if v.f.Stores.Lease != nil {
		v.addf("stores.lease", "%s; remove the lease store", why)
	}
	if v.f.Stores.ManagedSubscriptions != nil {
		v.addf("stores.managed_subscriptions", "not supported yet: nothing reads managed subscriptions; remove the store")
	}
	for i := range v.f.Routes {
		r := &v.f.Routes[i]
		path := index("routes", i)
		if r.Session != nil {
			v.addf(join(path, "session"), "%s; remove the route's session block", why)
		}
		if r.Policy.AllowUnfenced {
			v.addf(join(join(path, "policy"), "allow_unfenced"), "%s; remove the key", why)
		}
	}
}
