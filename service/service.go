package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Settings configures a Service: the factories it builds components
// with, and what it reports to.
type Settings struct {
	// Factories are the plugins the service may build: transports,
	// processors and stores. A configuration naming a type none of them
	// provides is refused. Required unless Registry is set.
	Factories []registry.Factory
	// Registry holds the factories, for a caller that built one already;
	// it wins over Factories.
	Registry *registry.Registry
	// Logger receives the bridge's logs (default: discard).
	Logger *slog.Logger
	// Meter receives metrics (default: no-op); MetricsHandler serves them.
	Meter          telemetry.Meter
	MetricsHandler http.Handler
	// Tracer, when set, is the tracer every route opens spans with, in
	// place of the one telemetry.tracing configures (which is then not
	// built). Nil means the configured one, or none.
	Tracer telemetry.Tracer
	// DataDir is where relative store paths are resolved.
	DataDir string
	// Version is reported by the status endpoint.
	Version string
	// Reread returns the configuration file again for a reload without a
	// body (SIGHUP or an empty reload request). Nil refuses such reloads.
	Reread func() (*config.File, error)
	// Parse reads a configuration document sent to the admin API. The
	// bridge passes config.WithAllowedRefs with the running file's
	// http.posted_config_refs, so that a posted document resolves only the
	// references the operator listed.
	Parse func(yaml []byte, opts ...config.Option) (*config.File, error)
	// Processors are Go-constructed processors, by name, that routes may
	// list besides those declared in the file.
	Processors map[string]ports.Processor
}

// Service is one configuration built into sessions, senders, processors,
// receivers and stores, with a route runtime per route. It answers the
// admin and monitor APIs (httpapi.Backend) and takes reloads.
type Service struct {
	opts Settings
	log  *slog.Logger

	// schemas are the settings schemas of the bundled plugins, by kind and
	// type, which Config redacts by.
	schemas map[string]map[string]json.RawMessage

	mu      sync.Mutex // guards everything below
	started time.Time
	file    *config.File
	// boot is the file the process started with: the listeners, stores
	// and logging run as it says until a restart.
	boot *config.File
	// trustedRefs is http.posted_config_refs of the last file read from
	// disk (at start, or re-read by a reload without a body).
	trustedRefs []string
	// api receives the API keys of each applied reload; nil without one.
	api    KeyRotator
	gen    int
	comps  map[string]*component
	stores *storeSet
	leases *leaseSet
	ro     *clusterRollout // how a reload is taken (cluster_reload.go)
	routes map[string]*routeRun
	runCtx context.Context // parent of the route runtimes; set by Run
	closed bool

	// tracing is telemetry.tracing's tracer, nil when not configured.
	tracing registry.Tracing
}

// New parses and validates the configuration document cfg against the
// factories of s, then builds it as NewFromFile does. Every problem of
// the document is reported at once, as config.Problems. Only references of
// the form ${env:NAME} and ${file:PATH} are resolved.
func New(ctx context.Context, cfg []byte, s Settings) (*Service, error) {
	reg, err := s.registry()
	if err != nil {
		return nil, err
	}
	s.Registry = reg
	f, err := config.Parse(cfg)
	if err != nil {
		return nil, err
	}
	warns, err := Validate(f, reg, slices.Collect(maps.Keys(s.Processors)))
	if err != nil {
		return nil, err
	}
	if s.Logger != nil {
		for _, w := range warns {
			s.Logger.Warn("configuration warning", "path", w.Path, "warning", w.Message)
		}
	}
	return NewFromFile(ctx, f, s)
}

// registry returns s.Registry, or one holding s.Factories.
func (s Settings) registry() (*registry.Registry, error) {
	if s.Registry != nil {
		return s.Registry, nil
	}
	if len(s.Factories) == 0 {
		return nil, fault.ErrInvalidConfig.WithMessage("service: Settings names no factories")
	}
	r := registry.New()
	if err := r.Add(s.Factories...); err != nil {
		return nil, err
	}
	return r, nil
}

// NewFromFile builds every component of an already parsed and validated f
// without starting anything: a problem with any of them (a store that
// cannot be opened, a receiver with a bad setting) fails it with every
// such problem listed. Run starts it.
func NewFromFile(ctx context.Context, f *config.File, opts Settings) (*Service, error) {
	reg, err := opts.registry()
	if err != nil {
		return nil, err
	}
	opts.Registry = reg
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Meter == nil {
		opts.Meter = telemetry.Noop()
	}
	b := &Service{
		opts: opts, log: opts.Logger, file: f, boot: f, trustedRefs: postedRefs(f), gen: 1,
		schemas: PluginSchemas(opts.Registry),
		comps:   map[string]*component{},
		routes:  map[string]*routeRun{},
	}
	stores, err := openStores(ctx, f, opts.Registry, registry.Settings{Logger: b.log, Meter: opts.Meter, DataDir: opts.DataDir})
	if err != nil {
		return nil, err
	}
	b.stores = stores
	if opts.Tracer == nil {
		if b.tracing, err = openTracer(ctx, f, opts.Registry, registry.Settings{ID: "tracing", Logger: b.log.With("component", "tracing"), Meter: opts.Meter}); err != nil {
			b.closeAll(context.WithoutCancel(ctx))
			return nil, err
		}
	}
	b.leases = newLeaseSet(stores.lease, f.Bridge.InstanceID, b.log.With("component", "lease"), opts.Meter)
	if b.ro, err = newClusterRollout(f, stores.lease, b.log.With("component", "rollout"), opts.Meter); err != nil {
		b.closeAll(context.WithoutCancel(ctx))
		return nil, err
	}
	if err := b.buildComponents(ctx, f, nil); err != nil {
		b.closeAll(context.WithoutCancel(ctx))
		return nil, err
	}
	for _, rc := range f.Routes {
		rr, err := b.prepareRoute(rc, b.gen)
		if err != nil {
			b.closeAll(context.WithoutCancel(ctx))
			return nil, err
		}
		b.routes[rc.ID] = rr
	}
	return b, nil
}

// deps returns the factory dependencies of the component id.
func (b *Service) deps(id string) registry.Settings {
	return registry.Settings{ID: id, Logger: b.log.With("component", id), Meter: b.opts.Meter, DataDir: b.opts.DataDir,
		StreamLog: b.stores.streamLog(), Subscriptions: b.stores.ledger()}
}

// Run starts sessions and routes and blocks until ctx ends; it then stops
// every route (in-flight deliveries finish or are left to their source
// within the shutdown timeout) and closes everything.
func (b *Service) Run(ctx context.Context) error {
	b.mu.Lock()
	if b.runCtx != nil || b.closed {
		b.mu.Unlock()
		return fault.ErrInvalidConfig.WithMessage("bridge: Run called twice")
	}
	runCtx, cancelRoutes := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRoutes()
	b.runCtx = runCtx
	b.started = time.Now()
	if err := b.startSessions(ctx); err != nil {
		b.mu.Unlock()
		return errors.Join(err, b.stop(context.WithoutCancel(ctx)))
	}
	b.leases.start(runCtx)
	for _, rr := range b.routes {
		rr.start(runCtx)
	}
	b.ro.startWatch(b)
	b.mu.Unlock()
	<-ctx.Done()
	b.ro.stopWatch()
	b.log.Info("stopping: draining routes")
	return b.stop(context.WithoutCancel(ctx))
}

// stop stops every route, then closes components and stores.
func (b *Service) stop(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var wg sync.WaitGroup
	errs := make(chan error, len(b.routes))
	for _, rr := range b.routes {
		wg.Go(func() {
			if err := rr.stop(); err != nil {
				errs <- fmt.Errorf("route %s: %w", rr.cfg.ID, err)
			}
		})
	}
	wg.Wait()
	// The routes' drainers have stopped: the leases can be released.
	b.leases.stop()
	b.ro.cancel()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	b.closeAll(ctx)
	b.closed = true
	return errors.Join(all...)
}

// closeAll closes components, then stores. Callers hold mu or own b.
func (b *Service) closeAll(ctx context.Context) {
	// Receivers first (nothing new comes in), then senders and processors,
	// sessions last: receivers and senders run on them.
	for _, kind := range []registry.Kind{registry.KindReceiver, registry.KindSender, registry.KindProcessor, registry.KindSession} {
		for _, k := range sortedKeys(b.comps) {
			if b.comps[k].kind == kind {
				b.closeComponent(ctx, k)
			}
		}
	}
	if b.stores != nil {
		b.stores.close(ctx, b.log)
	}
	b.closeTracing(ctx)
}

// Close releases everything New built, for a bridge that will not Run.
func (b *Service) Close(ctx context.Context) error { return b.stop(ctx) }
