package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// ReloadReport says what a reload changed.
type ReloadReport struct {
	Generation              int
	Added, Removed, Changed []string
	// RestartRequired lists where the running process now differs from
	// the configuration: settings changed since the process started (by
	// this reload or an earlier one) that only a restart applies.
	RestartRequired []config.Warning
}

// applyAttempts bounds how often a member applies a configuration its
// cohort committed (coordinated rollout) before it reports the failure.
const applyAttempts = 3

// ReloadFile applies nf, which must be valid: routes that were removed or
// changed are stopped (their in-flight deliveries finish, or are left to
// their source, within the shutdown timeout), components whose settings
// changed are rebuilt, and new or changed routes start. Untouched routes
// keep running throughout. The API keys of nf are handed to the server set
// by UseAPI. When a component cannot be built, the previous configuration
// is put back and the error returned. A clustered bridge first asks its
// rollout mode (clusterRollout), which may refuse the reload or, for a
// coordinated rollout, wait for the other members' votes.
func (b *Service) ReloadFile(ctx context.Context, nf *config.File) (ReloadReport, error) {
	b.ro.reloading.Lock()
	defer b.ro.reloading.Unlock()
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return ReloadReport{}, fault.ErrUnavailable.WithMessage("the bridge is stopping")
	}
	if err := b.checkKeys(nf); err != nil {
		b.mu.Unlock()
		return ReloadReport{}, err
	}
	old := b.file
	b.mu.Unlock()
	plan := config.Diff(old, nf)
	committed, err := b.ro.admit(ctx, old, nf, plan)
	if err != nil {
		return ReloadReport{}, err
	}
	for attempt := 1; ; attempt++ {
		rep, err := b.applyPlan(ctx, old, nf, plan)
		if err == nil || !committed || attempt == applyAttempts || !b.runs(old) {
			b.ro.settle(committed, err)
			return rep, err
		}
		b.log.Warn("applying the configuration the cohort committed failed; retrying", "attempt", attempt, "err", sanitize(err, nf, old))
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			b.ro.settle(committed, err)
			return rep, err
		case <-t.C:
		}
	}
}

// runs reports whether f is the running configuration.
func (b *Service) runs(f *config.File) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.file == f && !b.closed
}

// applyPlan makes nf the running configuration, or puts old back.
func (b *Service) applyPlan(ctx context.Context, old, nf *config.File, plan config.ReloadPlan) (ReloadReport, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ReloadReport{}, fault.ErrUnavailable.WithMessage("the bridge is stopping")
	}
	restart := slices.Concat(plan.Removed, plan.Changed)
	b.stopRoutes(restart)
	if err := b.apply(ctx, nf, restart, slices.Concat(plan.Added, plan.Changed)); err != nil {
		b.log.Error("reload failed; restoring the previous configuration", "err", sanitize(err, nf, old))
		back := slices.Concat(plan.Added, plan.Changed)
		b.stopRoutes(back)
		if rerr := b.apply(ctx, old, back, restart); rerr != nil {
			return ReloadReport{}, fmt.Errorf("reload failed (%w) and restoring the previous configuration failed too: %v", err, rerr)
		}
		return ReloadReport{}, err
	}
	b.retainLeases()
	b.rotateKeys(nf)
	b.gen++
	pending := config.Diff(b.boot, nf).RestartRequired
	b.log.Info("configuration reloaded", "generation", b.gen,
		"added", plan.Added, "removed", plan.Removed, "changed", plan.Changed, "restart_required", len(pending))
	return ReloadReport{Generation: b.gen, Added: plan.Added, Removed: plan.Removed, Changed: plan.Changed,
		RestartRequired: pending}, nil
}

// stopRoutes stops the named routes in parallel and forgets them.
func (b *Service) stopRoutes(ids []string) {
	var wg sync.WaitGroup
	for _, id := range ids {
		if rr, ok := b.routes[id]; ok {
			wg.Go(func() { _ = rr.stop() })
		}
	}
	wg.Wait()
	for _, id := range ids {
		delete(b.routes, id)
	}
}

// apply makes f the running file: components are rebuilt as needed (the
// receivers of the stopped routes always are, since a receiver runs once),
// then the routes in start are assembled and started.
func (b *Service) apply(ctx context.Context, f *config.File, stopped, start []string) error {
	rebuild := map[string]bool{}
	for _, files := range []*config.File{b.file, f} {
		for _, rc := range files.Routes {
			if slices.Contains(stopped, rc.ID) || slices.Contains(start, rc.ID) {
				rebuild[key(registry.KindReceiver, rc.ReceiverID)] = true
			}
		}
	}
	b.file = f
	if err := b.buildComponents(ctx, f, rebuild); err != nil {
		return err
	}
	if err := b.startSessions(ctx); err != nil {
		return err
	}
	var errs []error
	for _, rc := range f.Routes {
		if !slices.Contains(start, rc.ID) {
			continue
		}
		rr, err := b.prepareRoute(rc, b.gen+1)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		b.routes[rc.ID] = rr
		if b.runCtx != nil {
			rr.start(b.runCtx)
		}
	}
	return errors.Join(errs...)
}
