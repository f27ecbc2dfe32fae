package bridge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

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

// ReloadFile applies nf, which must be valid: routes that were removed or
// changed are stopped (their in-flight deliveries finish, or are left to
// their source, within the shutdown timeout), components whose settings
// changed are rebuilt, and new or changed routes start. Untouched routes
// keep running throughout. The API keys of nf are handed to the server set
// by UseAPI. When a component cannot be built, the previous configuration
// is put back and the error returned.
func (b *Bridge) ReloadFile(ctx context.Context, nf *config.File) (ReloadReport, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ReloadReport{}, fault.ErrUnavailable.WithMessage("the bridge is stopping")
	}
	if err := b.checkKeys(nf); err != nil {
		return ReloadReport{}, err
	}
	old := b.file
	plan := config.Diff(old, nf)
	if err := refuseClustered(old, nf, plan); err != nil {
		return ReloadReport{}, err
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
func (b *Bridge) stopRoutes(ids []string) {
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
func (b *Bridge) apply(ctx context.Context, f *config.File, stopped, start []string) error {
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
		rr, err := b.prepareRoute(rc)
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
