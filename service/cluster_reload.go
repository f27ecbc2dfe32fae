package service

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/gobridge-oss/gobridge/core/cluster"
	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// clusterRollout is how a clustered bridge takes a live reload, by its
// bridge.cluster.rollout mode (the one it started with: a reload cannot
// change it):
//
//   - refuse (the default) refuses every reload that changes something;
//   - independent applies a reload on this member alone, as a standalone
//     bridge does;
//   - coordinated applies a reload once every member of the roster
//     reloaded the same configuration (cluster.Rollout).
//
// Every mode refuses the changes that no member can apply live
// (config.LiveBlockers). A refused change is listed in restart_required
// until a later reload succeeds. A standalone bridge has no mode and
// applies every reload.
type clusterRollout struct {
	mode  string
	coord *cluster.Rollout // coordinated only
	log   *slog.Logger

	// reloading serialises reloads: a coordinated one waits for the
	// votes without holding the bridge's lock.
	reloading sync.Mutex

	ctx    context.Context // ends the votes and the watcher on stop
	cancel context.CancelFunc
	done   chan struct{} // closed when the watcher ends; nil without one

	mu       sync.Mutex
	refused  []config.Warning // what the last refused reload would have changed
	applyErr string           // a committed configuration this member could not apply
}

// newClusterRollout sets up the rollout mode of f.
func newClusterRollout(f *config.File, store ports.LeaseStore, log *slog.Logger, meter telemetry.Meter) (*clusterRollout, error) {
	ctx, cancel := context.WithCancel(context.Background())
	ro := &clusterRollout{mode: f.Bridge.RolloutMode(), log: log, ctx: ctx, cancel: cancel}
	if ro.mode != config.RolloutCoordinated {
		return ro, nil
	}
	c, err := cluster.NewRollout(cluster.RolloutConfig{Store: store, Member: f.Bridge.InstanceID,
		Members: f.Bridge.Cluster.Members, Timeout: f.Bridge.RolloutTimeout(), Logger: log, Meter: meter})
	if err != nil {
		cancel()
		return nil, err
	}
	ro.coord = c
	return ro, nil
}

// admit decides whether the reload from old to nf may be applied;
// committed is true when the roster agreed on it (coordinated). It runs
// without the bridge's lock.
func (ro *clusterRollout) admit(ctx context.Context, old, nf *config.File, plan config.ReloadPlan) (committed bool, err error) {
	if ro.mode == "" {
		return false, nil
	}
	if plan.Empty() {
		return ro.rejoin(ctx, nf)
	}
	if bl := config.LiveBlockers(old, nf); len(bl) > 0 {
		ro.noteRefused(plan, bl)
		var parts []string
		for _, w := range bl {
			parts = append(parts, w.Path+" ("+w.Message+")")
		}
		return false, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf(
			"a clustered bridge cannot apply these changes live, in any rollout mode: %s; the running configuration is unchanged",
			strings.Join(parts, "; ")))
	}
	switch ro.mode {
	case config.RolloutIndependent:
		return false, nil
	case config.RolloutCoordinated:
		return ro.coordinate(ctx, nf)
	}
	ro.noteRefused(plan, nil)
	return false, fault.ErrInvalidConfig.WithMessage("a clustered bridge refuses live reloads that change its configuration " +
		"(bridge.cluster.rollout: refuse): the running configuration is unchanged; roll the change out by replacing every instance, " +
		"or choose the independent or coordinated rollout")
}

// rejoin votes with a reload that changes nothing on this member when a
// round about this very configuration is open: the member already runs
// what the others are voting for (it started with the new file), and
// the round needs its vote.
func (ro *clusterRollout) rejoin(ctx context.Context, nf *config.File) (bool, error) {
	if ro.coord == nil {
		return false, nil
	}
	hash, err := nf.RolloutHash()
	if err != nil {
		return false, nil
	}
	p, live, err := ro.coord.Pending(ctx)
	if err != nil || !live || p.Hash != hash || p.Round == ro.coord.Last().Round {
		return false, nil
	}
	return ro.coordinate(ctx, nf)
}

// coordinate votes for nf and waits for the round's outcome. The vote
// outlives the caller's context (an admin API client that hangs up does
// not abort the cohort's round) but not the bridge.
func (ro *clusterRollout) coordinate(ctx context.Context, nf *config.File) (bool, error) {
	hash, err := nf.RolloutHash()
	if err != nil {
		return false, fault.ErrInvalidConfig.WithMessage("coordinated rollout: the configuration cannot be hashed").Wrap(err)
	}
	vctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ro.ctx, cancel)
	defer stop()
	out, err := ro.coord.Vote(vctx, hash)
	if err != nil {
		return false, fault.ErrUnavailable.WithMessage("coordinated rollout: the vote failed; nothing was applied").Wrap(err)
	}
	if !out.Committed {
		return false, fault.ErrUnavailable.WithMessage("coordinated rollout refused the reload: " + out.Reason +
			"; nothing was applied, the running configuration is unchanged")
	}
	return true, nil
}

// noteRefused keeps what a refused reload would have changed, for
// restart_required: the blockers with their reasons, then every other
// change of the plan.
func (ro *clusterRollout) noteRefused(plan config.ReloadPlan, blockers []config.Warning) {
	const why = "refused by the cluster rollout mode; the running configuration differs from the file until every instance is replaced"
	ws := slices.Clone(blockers)
	add := func(path string) {
		if !slices.ContainsFunc(ws, func(w config.Warning) bool { return w.Path == path }) {
			ws = append(ws, config.Warning{Path: path, Message: why})
		}
	}
	for _, id := range slices.Concat(plan.Added, plan.Removed, plan.Changed) {
		add("routes." + id)
	}
	for _, w := range plan.RestartRequired {
		add(w.Path)
	}
	ro.mu.Lock()
	ro.refused = ws
	ro.mu.Unlock()
}

// settle records how an admitted reload ended: a success forgets the
// last refusal; a committed configuration that failed to apply is kept
// for deep health, since the other members may run it.
func (ro *clusterRollout) settle(committed bool, err error) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	switch {
	case err == nil:
		ro.refused, ro.applyErr = nil, ""
	case committed:
		ro.applyErr = err.Error()
	}
}

// restartRequired lists the changes the last refused reload would have
// made.
func (ro *clusterRollout) restartRequired() []config.Warning {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	return slices.Clone(ro.refused)
}

// retainLeases stops the lease managers no route uses any more; b.mu is
// held.
func (b *Service) retainLeases() {
	keep := map[string]bool{}
	for _, rr := range b.routes {
		for _, k := range rr.leaseKeys {
			keep[k] = true
		}
	}
	b.leases.retain(keep)
}

// restartRequired lists where the running process differs from its
// configuration until a restart: the settings changed since it started
// that only a restart applies, then the changes a clustered rollout
// refused; b.mu is held.
func (b *Service) restartRequired() []config.Warning {
	ws := config.Diff(b.boot, b.file).RestartRequired
	for _, w := range b.ro.restartRequired() {
		if !slices.ContainsFunc(ws, func(x config.Warning) bool { return x.Path == w.Path }) {
			ws = append(ws, w)
		}
	}
	return ws
}
