package service

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"github.com/gobridge-oss/gobridge/core/cluster"
	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/httpapi"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// leaseSet keeps the bridge's lease managers: one per route session (key
// session/<session_id>), and on a clustered deployment one per outbox
// partition of a shared_outbox route without a session block (key
// outbox/<route>/<binding>). Managers outlive route runtimes, so a route
// rebuilt by a reload keeps its lease.
type leaseSet struct {
	store ports.LeaseStore
	owner string
	log   *slog.Logger
	meter telemetry.Meter

	mu     sync.Mutex
	runs   map[string]*leaseRun
	runCtx context.Context // set by start; managers added later start at once
}

// leaseRun is one manager and the goroutine that runs it.
type leaseRun struct {
	mgr    *cluster.Manager
	cancel context.CancelFunc
	done   chan struct{}
}

func newLeaseSet(store ports.LeaseStore, owner string, log *slog.Logger, meter telemetry.Meter) *leaseSet {
	return &leaseSet{store: store, owner: owner, log: log, meter: meter, runs: map[string]*leaseRun{}}
}

// timingOf resolves a session block's lease cadence; nil gives the
// defaults (a partition lease of a route without a session block).
func timingOf(s *config.RouteSession) (cluster.Timing, error) {
	if s == nil {
		s = &config.RouteSession{}
	}
	c, err := s.Cadence()
	if err != nil {
		return cluster.Timing{}, fault.ErrInvalidConfig.WithMessage(err.Error())
	}
	grace := s.StepDownGrace
	if grace == 0 {
		grace = config.DefaultStepDownGrace
	}
	return cluster.Timing{TTL: c.LeaseTTL, RenewInterval: c.RenewInterval, RenewJitter: c.RenewJitter,
		RenewCallTimeout: c.RenewCallTimeout, MaxRenewFails: c.MaxRenewFails, StepDownGrace: grace,
		AcquirePollInterval: c.AcquirePollInterval}, nil
}

// leaseKeys maps each outbox partition of rc to the lease that fences it,
// and lists the route's lease keys. A route gets leases when it has a
// session block, or when the deployment is clustered and the route drains
// an outbox.
func leaseKeys(f *config.File, rc config.Route) (byPartition map[string]string, keys []string) {
	byPartition = map[string]string{}
	switch {
	case rc.Session != nil:
		k := "session/" + rc.Session.SessionID
		for _, b := range rc.Bindings {
			byPartition[rc.ID+"/"+b] = k
		}
		return byPartition, []string{k}
	case f.Bridge.Deployment == config.DeploymentClustered && rc.RuntimeDeliveryMode() == runtime.SharedOutbox:
		for _, b := range rc.Bindings {
			k := "outbox/" + rc.ID + "/" + b
			byPartition[rc.ID+"/"+b] = k
			keys = append(keys, k)
		}
		return byPartition, keys
	}
	return nil, nil
}

// ensure makes the managers of rc exist (started when the set runs) and
// returns the route's lease gate, or nil when the route is not leased.
func (l *leaseSet) ensure(f *config.File, rc config.Route) (runtime.LeaseGate, []string, error) {
	parts, keys := leaseKeys(f, rc)
	if len(keys) == 0 {
		return nil, nil, nil
	}
	if l == nil || l.store == nil {
		return nil, nil, fault.ErrInvalidConfig.WithMessage("route " + rc.ID + ": leased draining needs stores.lease")
	}
	tm, err := timingOf(rc.Session)
	if err != nil {
		return nil, nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		if _, ok := l.runs[k]; ok {
			continue
		}
		m, err := cluster.New(cluster.Config{Key: k, Owner: l.owner, Store: l.store, Timing: tm,
			Logger: l.log, Meter: l.meter, BrokerHealth: brokerHealthOf(rc.Session)})
		if err != nil {
			return nil, nil, err
		}
		r := &leaseRun{mgr: m}
		l.runs[k] = r
		if l.runCtx != nil {
			l.launch(r)
		}
	}
	return &routeGate{l: l, parts: parts}, keys, nil
}

// launch runs r's manager; l.mu is held.
func (l *leaseSet) launch(r *leaseRun) {
	ctx, cancel := context.WithCancel(l.runCtx)
	r.cancel, r.done = cancel, make(chan struct{})
	go func() {
		defer close(r.done)
		_ = r.mgr.Run(ctx)
	}()
}

// start runs every manager until stop.
func (l *leaseSet) start(ctx context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runCtx = ctx
	for _, r := range l.runs {
		if r.done == nil {
			l.launch(r)
		}
	}
}

// retain stops and forgets the managers whose keys are not in keep.
func (l *leaseSet) retain(keep map[string]bool) {
	l.mu.Lock()
	var gone []*leaseRun
	for k, r := range l.runs {
		if !keep[k] {
			gone = append(gone, r)
			delete(l.runs, k)
		}
	}
	l.mu.Unlock()
	for _, r := range gone {
		r.stop()
	}
}

// stop steps every manager down and releases its lease; the routes have
// stopped, so no holder is left.
func (l *leaseSet) stop() { l.retain(nil) }

func (r *leaseRun) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	<-r.done
}

// manager returns the manager of key.
func (l *leaseSet) manager(key string) *cluster.Manager {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := l.runs[key]; ok {
		return r.mgr
	}
	return nil
}

// roleOf is the role of an instance (or a route) with the given lease
// keys: standalone without any, active when it holds one of them,
// standby otherwise.
func (l *leaseSet) roleOf(keys []string) string {
	if l == nil || len(keys) == 0 {
		return httpapi.RoleStandalone
	}
	for _, k := range keys {
		if m := l.manager(k); m != nil && m.State().Holds() {
			return httpapi.RoleActive
		}
	}
	return httpapi.RoleStandby
}

// keys lists the lease keys, sorted.
func (l *leaseSet) keys() []string {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.runs))
	for k := range l.runs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// components reports each lease for deep health: up while held or
// waiting as a standby, with the manager's state as the detail.
func (l *leaseSet) components() []httpapi.Component {
	var out []httpapi.Component
	for _, k := range l.keys() {
		if m := l.manager(k); m != nil {
			out = append(out, httpapi.Component{Kind: "lease", ID: k, Status: httpapi.HealthUp, Detail: m.State().String()})
		}
	}
	return out
}

// routeGate is a route's runtime.LeaseGate: each partition waits on the
// manager of its lease.
type routeGate struct {
	l     *leaseSet
	parts map[string]string
}

// Hold waits for the lease of partition.
func (g *routeGate) Hold(ctx context.Context, partition string) (runtime.LeaseTerm, error) {
	m := g.l.manager(g.parts[partition])
	if m == nil {
		return nil, fault.ErrInvalidConfig.WithMessage("no lease covers outbox partition " + partition)
	}
	t, err := m.Hold(ctx)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// StepDown gives up the lease named key (as deep health lists it, e.g.
// "session/rabbit") if this instance holds it, so that a standby takes
// over: for planned maintenance of this instance or its broker path. It
// fails with NOT_FOUND for a lease this configuration does not have.
func (b *Service) StepDown(key string) error {
	b.mu.Lock()
	m := b.leases.manager(key)
	b.mu.Unlock()
	if m == nil {
		return fault.ErrNotFound.WithMessage(fmt.Sprintf("no lease %q in this configuration", key))
	}
	m.StepDown()
	return nil
}
