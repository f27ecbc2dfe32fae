package config

import (
	"slices"
	"time"
)

// MinVoteTimeout is the shortest vote timeout accepted: every member polls
// the lease store for votes several times within it.
const MinVoteTimeout = time.Second

// rollout checks the bridge.cluster block: it belongs to a clustered
// deployment, the roster and the vote timeout belong to a coordinated
// rollout, and a coordinated rollout has a roster that holds this
// instance and a lease store to vote through.
func (v *validator) rollout() {
	c := v.f.Bridge.Cluster
	if c == nil {
		return
	}
	const at = "bridge.cluster"
	if v.f.Bridge.Deployment != DeploymentClustered {
		v.addf(at, "applies only to a clustered deployment (bridge.deployment: clustered); a standalone bridge applies every reload itself: remove the block")
		return
	}
	if !v.oneOf(join(at, "rollout"), c.Rollout, RolloutRefuse, RolloutIndependent, RolloutCoordinated) {
		return
	}
	if c.Rollout != RolloutCoordinated {
		if len(c.Members) > 0 {
			v.addf(join(at, "members"), "applies only to rollout: coordinated; remove it")
		}
		if c.VoteTimeout != 0 {
			v.addf(join(at, "vote_timeout"), "applies only to rollout: coordinated; remove it")
		}
		return
	}
	if v.f.Stores.Lease == nil {
		v.addf(join(at, "rollout"), "coordinated requires stores.lease: the members vote through the lease store")
	}
	if c.VoteTimeout != 0 && (c.VoteTimeout < MinVoteTimeout || c.VoteTimeout > MaxVoteTimeout) {
		v.addf(join(at, "vote_timeout"), "must be between %s and %s, got %s", MinVoteTimeout, MaxVoteTimeout, c.VoteTimeout)
	}
	v.roster(join(at, "members"), c.Members)
}

// roster checks the members of a coordinated rollout.
func (v *validator) roster(path string, members []string) {
	if len(members) == 0 {
		v.addf(path, "coordinated requires the roster: the instance_id of every member, this one included")
		return
	}
	for i, m := range members {
		switch {
		case m == "":
			v.addf(index(path, i), "must not be empty")
		case slices.Index(members, m) < i:
			v.addf(index(path, i), "%q is listed twice", m)
		}
	}
	if id := v.f.Bridge.InstanceID; id != "" && !slices.Contains(members, id) {
		v.addf(path, "does not hold this instance's bridge.instance_id %q: every member votes under its instance_id", id)
	}
}
