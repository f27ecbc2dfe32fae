package config

// notSupportedYet refuses the keys that are parsed and documented but that
// nothing acts on yet. Clustering itself runs (leases, fenced draining,
// failover, sources that connect after the lease, MQTT sessions and
// their managed-subscription ledger included); what is refused is the
// part of it not built yet: unfenced direct_hold. Accepting it would let
// a configuration promise a behaviour that does not happen.
func (v *validator) notSupportedYet() {
	for i := range v.f.Routes {
		r := &v.f.Routes[i]
		path := index("routes", i)
		if r.Policy.AllowUnfenced {
			v.addf(join(join(path, "policy"), "allow_unfenced"), "not supported yet: unfenced direct_hold on a shared consumer source; remove the key")
		}
	}
}
