package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// DefaultStopTimeout is how long Run waits for in-flight deliveries after
// intake stopped.
const DefaultStopTimeout = 30 * time.Second

// DefaultAttemptTrackerSize bounds the per-route table of failing messages
// kept for sources that do not count redeliveries.
const DefaultAttemptTrackerSize = 10000

// Options holds the dependencies shared by every route.
type Options struct {
	// Clock drives expiry checks and failure timestamps (system clock).
	Clock ports.Clock
	// Logger receives operational logs (slog.Default()).
	Logger *slog.Logger
	// Meter receives metrics (no-op).
	Meter telemetry.Meter
	// Tracer opens the spans of each delivery and outbox record and moves
	// trace context in and out of headers (no-op; see tracing.go).
	Tracer telemetry.Tracer
	// DLQ stores dead-lettered messages. Routes whose policy sends
	// anything to the DLQ are refused without it. Redrive needs it to be a
	// full ports.DLQStore.
	DLQ ports.DLQWriter
	// Outbox stores the messages of shared_outbox routes until their
	// drainers deliver them. Such routes are refused without it.
	Outbox ports.OutboxStore
	// StopTimeout bounds the wait for in-flight deliveries at shutdown (30s).
	StopTimeout time.Duration
	// CloseTimeout bounds closing senders at shutdown (10s).
	CloseTimeout time.Duration
	// AttemptTrackerSize bounds each route's table of failing messages
	// (10000).
	AttemptTrackerSize int
	// Rand returns uniform numbers in [0,1) for backoff jitter
	// (math/rand/v2).
	Rand func() float64
	// LeaseGate, when set, makes the drainers of shared_outbox routes
	// drain only while this instance holds their partition's lease, with
	// the lease's fencing token on every guarded write (a clustered
	// deployment). Nil drains always, under the zero token.
	LeaseGate LeaseGate
	// Fence, when set, is asked before every send of a direct_hold
	// delivery and before its settlement. While it reports false (the
	// instance no longer certainly holds the lease that makes it the
	// source's only consumer, e.g. a process that slept through its lease)
	// the delivery is neither sent nor settled: it stays with its source,
	// which hands it to the new lease holder. Nil never fences.
	Fence func() bool
}

func (o Options) withDefaults() Options {
	if o.Clock == nil {
		o.Clock = clock.System()
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Meter == nil {
		o.Meter = telemetry.Noop()
	}
	if o.Tracer == nil {
		o.Tracer = telemetry.NoopTracer()
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = DefaultStopTimeout
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = 10 * time.Second
	}
	if o.AttemptTrackerSize <= 0 {
		o.AttemptTrackerSize = DefaultAttemptTrackerSize
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	return o
}

// Runtime runs a fixed set of routes.
type Runtime struct {
	opts    Options
	runners []*runner
	started atomic.Bool
	running atomic.Bool // between the start of Run and the start of shutdown
}

// New checks routes and builds a runtime. All problems are reported at once,
// joined, each naming the route and field; every one is an INVALID_CONFIG
// fault.
func New(routes []Route, opts Options) (*Runtime, error) {
	if err := validate(routes, opts); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	rt := &Runtime{opts: opts}
	var errs []error
	for i, r := range routes {
		rn, err := newRunner(r, opts)
		if err != nil {
			errs = append(errs, fmt.Errorf("routes[%d]: %w", i, err))
			continue
		}
		rt.runners = append(rt.runners, rn)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return rt, nil
}

// Run starts every route and blocks until ctx ends or a receiver fails with
// an error it cannot recover from. Either way it then shuts down gracefully:
// intake stops, in-flight deliveries get Options.StopTimeout to finish, the
// rest are abandoned unsettled, and senders that implement ports.Closer are
// closed (each once, even when several bindings share it). Run
// returns the receiver's error, or nil after a cancellation. A Runtime runs
// once: a second call returns an error.
func (rt *Runtime) Run(ctx context.Context) error {
	if !rt.started.CompareAndSwap(false, true) {
		return fault.ErrInvalidConfig.WithMessage("runtime: Run may be called only once; build a new Runtime with New")
	}
	intakeCtx, stopIntake := context.WithCancel(ctx)
	defer stopIntake()

	// Sends are stamped with the coarse clock, which the watchdogs refresh
	// only once per tick: bring it up to date before the first delivery,
	// however long ago New ran.
	now := time.Now()
	for _, rn := range rt.runners {
		rn.refreshCoarse(now)
	}

	// Watchdogs outlive intake: they guard sends until shutdown is over.
	watchCtx, stopWatch := context.WithCancel(context.Background())
	var watchers sync.WaitGroup
	defer func() {
		stopWatch()
		watchers.Wait()
	}()
	for _, rn := range rt.runners {
		watchers.Go(func() { rn.runWatchdog(watchCtx) })
		watchers.Go(func() { rn.leases.run(watchCtx) })
	}

	drainers := startDrainers(rt.runners)
	rt.running.Store(true)

	var wg sync.WaitGroup
	fatal := make(chan error, len(rt.runners))
	for _, rn := range rt.runners {
		wg.Go(func() {
			if err := rn.runIntake(intakeCtx); err != nil {
				fatal <- fmt.Errorf("route %q: %w", rn.route.ID, err)
			}
		})
	}

	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-fatal:
		rt.opts.Logger.Error("receiver failed; stopping the bridge", "err", runErr)
	}
	rt.running.Store(false)
	stopIntake()
	wg.Wait()
	rt.shutdown(drainers)
	return runErr
}

// shutdown finishes in-flight work and closes resources; intake has
// stopped. Workers finish first, so that every message taken is persisted
// before the drainers stop; both share one StopTimeout deadline.
func (rt *Runtime) shutdown(drainers *drainGroup) {
	drainCtx, cancelDrain := context.WithTimeout(context.Background(), rt.opts.StopTimeout)
	defer cancelDrain()
	var wg sync.WaitGroup
	for _, rn := range rt.runners {
		wg.Go(func() { rn.stopWorkers(drainCtx.Done()) })
	}
	wg.Wait()
	drainers.shutdown(drainCtx.Done())
	rt.reportVolatileDLQ()
	closeCtx, cancel := context.WithTimeout(context.Background(), rt.opts.CloseTimeout)
	defer cancel()
	closed := map[ports.Closer]bool{}
	for _, rn := range rt.runners {
		for _, c := range rn.closers() {
			// Senders shared by several bindings or routes are closed
			// once; values that cannot be map keys (judged by their
			// contents, not only their type) are closed each time.
			if reflect.ValueOf(c).Comparable() {
				if closed[c] {
					continue
				}
				closed[c] = true
			}
			if err := c.Close(closeCtx); err != nil {
				rt.opts.Logger.Warn("close failed", "route", rn.route.ID, "err", err)
			}
		}
	}
}

// reportVolatileDLQ logs how many dead letters a DLQ kept in memory still
// holds at stop: they die with the process.
func (rt *Runtime) reportVolatileDLQ() {
	store, ok := rt.opts.DLQ.(ports.DLQStore)
	if !ok || !ports.IsVolatile(store) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
	defer cancel()
	if n, err := store.Count(ctx, ports.DLQFilter{}); err == nil && n > 0 {
		rt.opts.Logger.Error(fmt.Sprintf("memory DLQ: %d dead letters are lost with the process", n), "lost", n)
	}
}
