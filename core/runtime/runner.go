package runtime

import (
	"context"
	"errors"
	"hash/maphash"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/routing"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// errStopping is returned by emit once the route no longer takes deliveries.
var errStopping = fault.ErrUnavailable.WithMessage("route is stopping")

// runner drives one route. Deliveries are handled by up to MaxInFlight
// worker goroutines, started on demand and kept until shutdown; a full pool
// makes emit block, which is the back-pressure the receiver feels.
type runner struct {
	// leases extends the leases of in-flight leased deliveries.
	leases   *leaseTable
	route    Route
	policy   Policy
	opts     Options
	log      *slog.Logger
	caps     ports.ReceiverCapabilities
	resolver ports.DestinationResolver
	// fixed, when not nil, is what resolver answers for every message
	// (see resolve).
	fixed    []ports.DispatchPlan
	bindings map[string]*Binding
	// byIndex lists the bindings in route order, for lookups that scan
	// (see binding).
	byIndex  []*Binding
	bms      []bindingMetrics // the instruments of byIndex's bindings, in order
	attempts *attemptTracker
	seed     maphash.Seed // keys the attempt tracker's content hashes
	m        routeMetrics
	tracer   telemetry.Tracer
	traced   bool // tracer is not the no-op one
	// procNames names the processors in their spans (traced only).
	procNames []string
	timed     bool // a real meter: record metrics, gobridge_route_handle_seconds among them
	single    bool
	outbox    bool       // shared_outbox: persist instead of send
	depth     *depthGate // shared_outbox only

	// Header values boxed once so that setting them allocates nothing.
	routeIDValue, sourceIDValue any

	work       chan ports.Delivery
	idle       chan *worker                    // inline handling only (see inline.go)
	intakeDone chan struct{}                   // closed when intake stops
	intake     atomic.Pointer[context.Context] // the context intake runs under, once it runs

	mu       sync.Mutex // guards pool and stopping
	pool     []*worker
	poolSize atomic.Int32 // len(pool), read without the lock by emit
	stopping bool
	workers  sync.WaitGroup

	// coarseNow is the monotonic time since epoch in nanoseconds plus one
	// (so never 0), refreshed by Run and then by the watchdog each tick;
	// sends are stamped with it.
	coarseNow atomic.Int64
	epoch     time.Time

	// workCtx is cancelled when in-flight deliveries overstay the stop
	// timeout; settleCtx only settleGrace later, so that a delivery whose
	// send succeeded can still be acknowledged, but a source that cannot
	// answer (its broker is down) does not hold the shutdown forever.
	workCtx      context.Context
	cancelWork   context.CancelFunc
	settleCtx    context.Context
	cancelSettle context.CancelFunc
}

// settleGrace is how long Ack, Retry and DLQ writes may still run after the
// stop timeout fired. What is not settled by then stays unsettled, for the
// source to redeliver.
const settleGrace = 2 * time.Second

func newRunner(r Route, opts Options) (*runner, error) {
	if r.DeliveryMode == "" {
		r.DeliveryMode = DirectHold
	}
	if r.DispatchMode == "" {
		r.DispatchMode = Single
	}
	rn := &runner{
		route:         r,
		policy:        r.Policy.withDefaults(),
		opts:          opts,
		log:           opts.Logger.With("route", r.ID),
		caps:          capabilities(r.Receiver),
		resolver:      r.Resolver,
		bindings:      make(map[string]*Binding, len(r.Bindings)),
		attempts:      newAttemptTracker(opts.AttemptTrackerSize),
		seed:          maphash.MakeSeed(),
		m:             newRouteMetrics(opts.Meter, r.ID, r.Bindings),
		tracer:        opts.Tracer,
		traced:        !telemetry.IsNoopTracer(opts.Tracer),
		timed:         !telemetry.IsNoop(opts.Meter),
		single:        r.DispatchMode == Single,
		outbox:        r.DeliveryMode == SharedOutbox,
		routeIDValue:  r.ID,
		sourceIDValue: r.ReceiverID,
		work:          make(chan ports.Delivery),
		intakeDone:    make(chan struct{}),
	}
	rn.leases = newLeaseTable(rn)
	if rn.traced {
		rn.procNames = processorNames(r.Processors)
	}
	if rn.caps.CallerWaits {
		rn.idle = make(chan *worker, rn.policy.MaxInFlight)
	}
	bs := make([]routing.Binding, len(r.Bindings))
	for i := range r.Bindings {
		rn.bindings[r.Bindings[i].ID] = &r.Bindings[i]
		rn.byIndex = append(rn.byIndex, &r.Bindings[i])
		rn.bms = append(rn.bms, rn.m.binding[r.Bindings[i].ID])
		bs[i] = routing.Binding{ID: r.Bindings[i].ID, Address: r.Bindings[i].Address}
	}
	if rn.resolver == nil {
		typ := "static"
		if !rn.single {
			typ = "all"
		}
		res, err := routing.NewResolver(routing.ResolverSpec{Type: typ}, bs, routing.WithLogger(rn.log))
		if err != nil {
			return nil, err
		}
		rn.resolver = res
		if len(r.Processors) == 0 {
			// The default resolver answers with fixed plans unless the
			// message carries a route override. Ingress strips an inbound
			// one and no processor can set one, so ask it once.
			if rn.fixed, err = res.Resolve(context.Background(), messaging.NewEnvelope("", nil)); err != nil || len(rn.fixed) == 0 {
				rn.fixed = nil
			}
		}
	}
	if rn.outbox {
		rn.depth = newDepthGate(opts.Outbox, opts.Clock, rn.policy.Outbox)
	}
	rn.epoch = time.Now()
	rn.refreshCoarse(rn.epoch)
	rn.workCtx, rn.cancelWork = context.WithCancel(context.Background())
	rn.settleCtx, rn.cancelSettle = context.WithCancel(context.Background())
	return rn, nil
}

// runIntake runs the receiver until ctx ends. It returns the receiver's
// error unless the receiver merely stopped because ctx ended.
func (rn *runner) runIntake(ctx context.Context) error {
	defer close(rn.intakeDone)
	rn.intake.Store(&ctx)
	err := rn.route.Receiver.Run(ctx, rn.emit)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil
	}
	if err == nil && ctx.Err() == nil {
		rn.log.Info("receiver finished; route takes no more deliveries")
	}
	return err
}

// intakeCtx is the context intake runs under, or a context that never
// ends before intake starts. An inline delivery (handled on the
// receiver's goroutine) watches it, since intake cannot stop while it
// waits.
func (rn *runner) intakeCtx() context.Context {
	if p := rn.intake.Load(); p != nil {
		return *p
	}
	return context.Background()
}

// emit is the ports.EmitFunc handed to the receiver.
func (rn *runner) emit(ctx context.Context, d ports.Delivery) (err error) {
	if rn.idle != nil {
		return rn.emitInline(ctx, d)
	}
	defer func() {
		// Shutdown closes the work channel once the receiver's Run has
		// returned; a receiver that still emits afterwards breaks its
		// contract, and gets an error rather than a crash.
		if recover() != nil {
			err = errStopping
		}
	}()
	select {
	case rn.work <- d:
		return nil
	default:
	}
	if rn.spawn(d) {
		return nil
	}
	select {
	case rn.work <- d:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-rn.intakeDone:
		return errStopping
	}
}

// spawn starts a worker for d when the pool is not yet full.
func (rn *runner) spawn(d ports.Delivery) bool {
	if int(rn.poolSize.Load()) >= rn.policy.MaxInFlight {
		return false // the common case under load: no lock needed
	}
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if rn.stopping || len(rn.pool) >= rn.policy.MaxInFlight {
		return false
	}
	w := newWorker(rn)
	rn.pool = append(rn.pool, w)
	rn.poolSize.Store(int32(len(rn.pool)))
	rn.workers.Add(1)
	go w.loop(d)
	return true
}

// stopWorkers waits for in-flight deliveries until deadline fires, then
// cancels the rest, which are left unsettled, and waits for the workers.
// Intake must have stopped.
func (rn *runner) stopWorkers(deadline <-chan struct{}) {
	rn.mu.Lock()
	rn.stopping = true
	rn.mu.Unlock()
	close(rn.work) // idle workers exit; intake has stopped, so nobody sends
	done := make(chan struct{})
	go func() {
		rn.workers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-deadline:
		rn.log.Warn("stop timeout reached; abandoning in-flight deliveries unsettled")
		rn.cancelWork()
		t := time.AfterFunc(settleGrace, rn.cancelSettle)
		<-done
		t.Stop()
	}
	rn.cancelWork()
	rn.cancelSettle()
	rn.closeInline()
}

// scanBindings is the most bindings a lookup compares one by one before it
// hashes the ID instead.
const scanBindings = 8

// binding returns the route's binding called id, nil when there is none. A
// route has few bindings and a resolver's plans carry the binding's own ID
// string, which compares equal at once, so scanning beats hashing the ID
// for the map on every send.
func (rn *runner) binding(id string) *Binding {
	if len(rn.byIndex) > scanBindings {
		return rn.bindings[id]
	}
	for _, b := range rn.byIndex {
		if b.ID == id {
			return b
		}
	}
	return nil
}

// refreshCoarse sets the coarse clock to now and returns its value. It
// measures on the monotonic clock, so a step of the wall clock neither
// fires nor suppresses send timeouts.
func (rn *runner) refreshCoarse(now time.Time) int64 {
	n := max(int64(now.Sub(rn.epoch)), 0) + 1
	rn.coarseNow.Store(n)
	return n
}

// closers lists the route's senders that hold resources. Receivers are
// not closed: they stop when Run's context ends, and the caller that built
// them decides when to release them.
func (rn *runner) closers() []ports.Closer {
	var cs []ports.Closer
	for _, b := range rn.route.Bindings {
		if c, ok := b.Sender.(ports.Closer); ok {
			cs = append(cs, c)
		}
	}
	return cs
}

// newEnvelopeHeaders makes sure env has a header map to write into.
func ensureHeaders(env *messaging.Envelope) {
	if env.Headers == nil {
		env.Headers = make(map[string]any, 4)
	}
}
