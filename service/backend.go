package service

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/httpapi"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

var _ httpapi.Backend = (*Service)(nil)

// Status describes the process for the admin API.
func (b *Service) Status(context.Context) httpapi.Status {
	b.mu.Lock()
	defer b.mu.Unlock()
	return httpapi.Status{
		BridgeID: b.file.Bridge.ID, InstanceID: b.file.Bridge.InstanceID, Deployment: b.file.Bridge.Deployment,
		Version: b.opts.Version, StartedAt: b.started, Role: b.leases.roleOf(b.leases.keys()),
		RouteCount: len(b.file.Routes), ConfigGeneration: b.gen,
	}
}

// Routes lists the configured routes and their states.
func (b *Service) Routes(context.Context) []httpapi.RouteStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]httpapi.RouteStatus, 0, len(b.file.Routes))
	for _, rc := range b.file.Routes {
		st := httpapi.RouteStatus{ID: rc.ID, ReceiverID: rc.ReceiverID, DeliveryMode: rc.DeliveryMode,
			DispatchMode: rc.DispatchMode, Bindings: rc.Bindings, State: httpapi.RouteStopped}
		if rr, ok := b.routes[rc.ID]; ok {
			st.State, st.LastError = rr.status()
			st.Role = b.leases.roleOf(rr.leaseKeys)
			st.Generation = rr.gen
		}
		out = append(out, st)
	}
	return out
}

// Readiness is the highest level every part has reached: connected once
// every session is connected, subscribed once moreover every route runs
// (its receiver is consuming), full when this instance may also dispatch,
// which a standalone or active instance may; the monitor caps a standby
// (it holds no lease) at subscribed.
func (b *Service) Readiness(ctx context.Context) httpapi.Readiness {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := httpapi.Readiness{Level: httpapi.LevelFull, Role: b.leases.roleOf(b.leases.keys())}
	if b.started.IsZero() || b.closed {
		r.Level, r.Detail = httpapi.LevelNone, "not running"
		return r
	}
	lower := func(level, detail string) {
		if levelRank(level) < levelRank(r.Level) {
			r.Level, r.Detail = level, detail
		}
	}
	for _, k := range sortedKeys(b.comps) {
		c := b.comps[k]
		s, ok := c.value.(ports.Session)
		if !ok || c.kind != registry.KindSession {
			continue
		}
		// A session that connects only on the lease holder waits like
		// a standby route.
		if h := s.Health(ctx); !h.Connected && !awaitingLease(s) {
			lower(httpapi.LevelNone, "session "+c.id+" is not connected: "+h.Detail)
		}
	}
	// A running route's receiver is consuming: its subscriptions are in
	// place. (Sessions differ in what their own Subscribed flag tracks, so
	// the route's state is the common measure.)
	for _, rc := range b.file.Routes {
		state := stateReady
		if rr, ok := b.routes[rc.ID]; ok {
			state, _ = rr.status()
		}
		// An exclusive route waiting for its lease is where a standby
		// should be; the monitor caps the standby at subscribed.
		if state != stateRunning && state != stateStandby {
			lower(httpapi.LevelConnected, "route "+rc.ID+" is "+state)
		}
	}
	return r
}

// levelRank orders readiness levels.
func levelRank(level string) int {
	switch level {
	case httpapi.LevelConnected:
		return 1
	case httpapi.LevelSubscribed:
		return 2
	case httpapi.LevelFull:
		return 3
	}
	return 0
}

// DeepHealth reports sessions, stores and routes.
func (b *Service) DeepHealth(ctx context.Context) httpapi.DeepHealth {
	b.mu.Lock()
	defer b.mu.Unlock()
	dh := httpapi.DeepHealth{Role: b.leases.roleOf(b.leases.keys())}
	for _, k := range sortedKeys(b.comps) {
		c := b.comps[k]
		s, ok := c.value.(ports.Session)
		if !ok || c.kind != registry.KindSession {
			continue
		}
		h := s.Health(ctx)
		st := httpapi.HealthUp
		if awaitingLease(s) {
			st = httpapi.HealthUp // a standby's session, as a standby route
		} else if !h.Connected {
			st = httpapi.HealthDown
		} else if h.Status == ports.SessionDegraded {
			st = httpapi.HealthDegraded
		}
		dh.Components = append(dh.Components, httpapi.Component{Kind: "session", ID: c.id, Status: st, Detail: h.Detail})
	}
	if b.stores.dlq != nil {
		dh.Components = append(dh.Components, storeHealth(ctx, "dlq", func(ctx context.Context) error {
			_, err := b.stores.dlq.Count(ctx, ports.DLQFilter{})
			return err
		}))
	}
	if b.stores.outbox != nil {
		dh.Components = append(dh.Components, storeHealth(ctx, "outbox", func(ctx context.Context) error {
			_, err := b.stores.outbox.Depth(ctx, "")
			return err
		}))
	}
	dh.Components = append(dh.Components, b.leases.components()...)
	dh.Components = append(dh.Components, b.ro.component(ctx)...)
	for _, rc := range b.file.Routes {
		c := httpapi.Component{Kind: "route", ID: rc.ID, Status: httpapi.HealthDown, Detail: stateReady}
		if rr, ok := b.routes[rc.ID]; ok {
			state, lastErr := rr.status()
			c.Detail = state
			if state == stateRunning {
				c.Status, c.Detail = httpapi.HealthUp, ""
			} else if state == stateStandby {
				c.Status = httpapi.HealthUp
			} else if lastErr != "" {
				c.Detail = state + ": " + lastErr
			}
		}
		dh.Components = append(dh.Components, c)
	}
	for _, w := range b.restartRequired() {
		dh.RestartRequired = append(dh.RestartRequired, w.Path)
	}
	return dh
}

// storeHealth runs probe with a short deadline.
func storeHealth(ctx context.Context, role string, probe func(context.Context) error) httpapi.Component {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := probe(ctx); err != nil {
		return httpapi.Component{Kind: "store", ID: role, Status: httpapi.HealthDown, Detail: err.Error()}
	}
	return httpapi.Component{Kind: "store", ID: role, Status: httpapi.HealthUp}
}

// DLQ returns the dead-letter store, or nil.
func (b *Service) DLQ() ports.DLQStore {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stores.dlq == nil {
		return nil
	}
	return b.stores.dlq
}

// Redrive sends a DLQ entry through its route again.
func (b *Service) Redrive(ctx context.Context, entryID string) (string, error) {
	dlq := b.DLQ()
	if dlq == nil {
		return "", fault.ErrNotFound.WithMessage("no DLQ store is configured")
	}
	e, err := dlq.Get(ctx, entryID)
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	rr, ok := b.routes[e.RouteID]
	b.mu.Unlock()
	if !ok {
		return "", fault.ErrNotFound.WithMessage(fmt.Sprintf("route %q of DLQ entry %q is not configured", e.RouteID, entryID))
	}
	return rr.currentRuntime().Redrive(ctx, entryID)
}

// Config returns the running configuration, secrets redacted by the
// plugins' schemas.
func (b *Service) Config(context.Context) map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.file.Redacted(b.schemas)
}

// ValidateConfig checks a document without applying it.
func (b *Service) ValidateConfig(_ context.Context, yaml []byte) httpapi.ValidationResult {
	_, warns, err := b.parseAndValidate(yaml)
	res := httpapi.ValidationResult{Valid: err == nil, Problems: []httpapi.Problem{}, Warnings: []httpapi.Problem{}}
	res.Problems = problemsOf(err)
	for _, w := range warns {
		res.Warnings = append(res.Warnings, httpapi.Problem{Path: w.Path, Message: w.Message})
	}
	return res
}

// Reload applies a document, or re-reads the file when yaml is empty. Only
// a re-read file may change http.posted_config_refs; no error or problem
// quotes a value a reference resolved to.
func (b *Service) Reload(ctx context.Context, yaml []byte) (httpapi.ReloadResult, error) {
	var (
		nf  *config.File
		err error
	)
	reread := len(yaml) == 0
	if reread {
		if b.opts.Reread == nil {
			return httpapi.ReloadResult{}, fault.ErrNotSupported.WithMessage("this bridge runs the embedded configuration; send a document to reload")
		}
		if nf, err = b.opts.Reread(); err == nil {
			_, err = Validate(nf, b.opts.Registry, sortedKeys(b.opts.Processors))
		}
	} else {
		nf, _, err = b.parseAndValidate(yaml)
	}
	if err != nil {
		return httpapi.ReloadResult{Problems: problemsOf(err)}, fault.ErrInvalidConfig.WithMessage("the configuration was refused").Wrap(err)
	}
	b.mu.Lock()
	running := b.file
	b.mu.Unlock()
	rep, err := b.ReloadFile(ctx, nf)
	if err != nil {
		return httpapi.ReloadResult{}, sanitize(err, nf, running)
	}
	if reread {
		b.mu.Lock()
		b.trustedRefs = postedRefs(nf)
		b.mu.Unlock()
	}
	res := httpapi.ReloadResult{Generation: rep.Generation, Added: rep.Added, Removed: rep.Removed, Changed: rep.Changed,
		RestartRequired: []httpapi.Problem{}}
	for _, w := range rep.RestartRequired {
		res.RestartRequired = append(res.RestartRequired, httpapi.Problem{Path: w.Path, Message: w.Message})
	}
	return res, nil
}

// Metrics serves the Prometheus exposition, or nil.
func (b *Service) Metrics() http.Handler { return b.opts.MetricsHandler }

// parseAndValidate reads a posted document: its references resolve only
// when the trusted allow-list names them, and it may not change that list.
func (b *Service) parseAndValidate(yaml []byte) (*config.File, []config.Warning, error) {
	if b.opts.Parse == nil {
		return nil, nil, fault.ErrNotSupported.WithMessage("this bridge cannot parse configuration documents")
	}
	b.mu.Lock()
	allowed := slices.Clone(b.trustedRefs)
	b.mu.Unlock()
	// A partial parse keeps what decoded, so that one answer lists every
	// problem: an unknown key beside a bad plugin setting.
	f, perr := b.opts.Parse(yaml, config.WithAllowedRefs(allowed), config.WithPartial())
	if f == nil {
		return nil, nil, perr
	}
	b.mu.Lock()
	refused := b.refsChange(f)
	b.mu.Unlock()
	warns, verr := Validate(f, b.opts.Registry, sortedKeys(b.opts.Processors))
	err := config.JoinProblems(perr, verr)
	if len(refused) > 0 {
		var ps config.Problems
		if errors.As(err, &ps) {
			refused = append(slices.Clone(ps), refused...)
		}
		all := config.Problems(refused)
		return f, warns, &all
	}
	return f, warns, err
}

// problemsOf lists the problems inside err.
func problemsOf(err error) []httpapi.Problem {
	out := []httpapi.Problem{}
	if err == nil {
		return out
	}
	var ps config.Problems
	if errors.As(err, &ps) {
		for _, p := range ps {
			out = append(out, httpapi.Problem{Path: p.Path, Message: p.Message})
		}
		return out
	}
	return append(out, httpapi.Problem{Message: err.Error()})
}
