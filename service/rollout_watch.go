package service

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gobridge-oss/gobridge/core/httpapi"
)

// startWatch runs the watcher of a coordinated rollout until stopWatch:
// when another member opens a round, this member reads its own
// configuration file again and, when the file hashes to the proposed
// configuration, reloads it, which votes. A member without a file (the
// embedded configuration) joins only through its own reloads.
func (ro *clusterRollout) startWatch(b *Service) {
	if ro.coord == nil || b.opts.Reread == nil || ro.done != nil {
		return
	}
	ro.done = make(chan struct{})
	go func() {
		defer close(ro.done)
		ro.watch(b)
	}()
}

// stopWatch ends the votes in progress and the watcher, and waits for
// the watcher. The bridge's lock must not be held: the watcher may be
// inside a reload.
func (ro *clusterRollout) stopWatch() {
	ro.cancel()
	if ro.done != nil {
		<-ro.done
	}
}

func (ro *clusterRollout) watch(b *Service) {
	var seen struct {
		round uint64
		hash  string
	}
	t := time.NewTimer(ro.coord.Poll())
	defer t.Stop()
	for {
		select {
		case <-ro.ctx.Done():
			return
		case <-t.C:
		}
		t.Reset(ro.coord.Poll())
		p, live, err := ro.coord.Pending(ro.ctx)
		if err != nil || !live || p.Round == ro.coord.Last().Round || slices.Contains(p.Voted, b.instanceID()) {
			continue
		}
		nf, err := b.opts.Reread()
		if err != nil {
			continue // a reload would report it; the round times out
		}
		hash, err := nf.RolloutHash()
		if err != nil || hash != p.Hash {
			if seen.round != p.Round || seen.hash != hash {
				seen.round, seen.hash = p.Round, hash
				ro.log.Info("rollout: another configuration is being voted on; this member's file differs, so it does not vote",
					"round", p.Round, "proposer", p.Proposer, "proposed", short(p.Hash), "file", short(hash))
			}
			continue
		}
		res, err := b.Reload(ro.ctx, nil)
		if err != nil {
			ro.log.Warn("rollout: the proposed configuration was not applied", "round", p.Round, "err", err, "problems", res.Problems)
			continue
		}
		ro.log.Info("rollout: applied the configuration the cohort agreed on", "round", p.Round, "generation", res.Generation,
			"added", res.Added, "removed", res.Removed, "changed", res.Changed)
	}
}

// component reports the rollout in deep health: the mode, and for a
// coordinated rollout the open round and the last one this member took
// part in. It is degraded while this member could not apply a
// configuration its cohort committed.
func (ro *clusterRollout) component(ctx context.Context) []httpapi.Component {
	if ro.mode == "" {
		return nil
	}
	c := httpapi.Component{Kind: "rollout", ID: ro.mode, Status: httpapi.HealthUp}
	if ro.coord != nil {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if p, live, err := ro.coord.Pending(ctx); err != nil {
			c.Detail = "the open round cannot be read: " + err.Error()
		} else if live {
			c.Detail = fmt.Sprintf("round %d open for configuration %s until %s, voted: %v", p.Round, short(p.Hash),
				p.ExpiresAt.UTC().Format(time.RFC3339), p.Voted)
		} else if last := ro.coord.Last(); last.Round != 0 && last.Committed {
			c.Detail = fmt.Sprintf("round %d committed configuration %s", last.Round, short(last.Hash))
		} else if last.Round != 0 {
			c.Detail = fmt.Sprintf("round %d not committed: %s", last.Round, last.Reason)
		}
	}
	ro.mu.Lock()
	if ro.applyErr != "" {
		c.Status, c.Detail = httpapi.HealthDegraded, "the configuration the cohort committed was not applied here: "+ro.applyErr
	}
	ro.mu.Unlock()
	return []httpapi.Component{c}
}

// short is the start of a configuration hash.
func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// instanceID is the running file's bridge.instance_id.
func (b *Service) instanceID() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.file.Bridge.InstanceID
}
