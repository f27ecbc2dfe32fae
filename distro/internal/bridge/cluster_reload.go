package bridge

import (
	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
)

// refuseClustered applies the refuse rollout mode, the only one built so
// far and the default of a clustered deployment: a clustered bridge
// refuses every live reload that would change anything, and keeps running
// as it was. Its members would otherwise run different configurations
// until each one was reloaded; the change is rolled out by replacing the
// whole cohort instead. A reload that changes nothing passes.
func refuseClustered(old, nf *config.File, plan config.ReloadPlan) error {
	if old.Bridge.Deployment != config.DeploymentClustered || plan.Empty() {
		return nil
	}
	return fault.ErrInvalidConfig.WithMessage("a clustered bridge refuses live reloads that change its configuration " +
		"(cluster rollout mode refuse): the running configuration is unchanged; roll the change out by replacing every instance")
}

// retainLeases stops the lease managers no route uses any more; b.mu is
// held.
func (b *Bridge) retainLeases() {
	keep := map[string]bool{}
	for _, rr := range b.routes {
		for _, k := range rr.leaseKeys {
			keep[k] = true
		}
	}
	b.leases.retain(keep)
}
