package service

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
	"github.com/gobridge-oss/gobridge/core/routing"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// Route states, as the admin API reports them.
const (
	stateReady   = "stopped"
	stateRunning = "running"
	stateFailed  = "failed"
)

// routeRun is one route with a runtime of its own.
type routeRun struct {
	cfg config.Route
	gen int // the configuration generation that built it
	rt  *runtime.Runtime
	// leaseKeys are the leases that fence the route's draining; none for
	// a standalone route.
	leaseKeys []string
	// excl is set for a route whose source connects only on the holder
	// of its session's lease.
	excl *exclusive
	// probe is the broker-health probe an exclusive route hands its
	// session lease's manager when it starts; nil when off.
	probe *sourceProbe
	log   interface {
		Error(msg string, args ...any)
		Info(msg string, args ...any)
	}

	mu      sync.Mutex
	state   string
	lastErr string
	cancel  context.CancelFunc
	done    chan struct{}
}

// prepareRoute assembles rc from built components into a runtime.
func (b *Service) prepareRoute(rc config.Route, gen int) (*routeRun, error) {
	recv, ok := b.comps[key(registry.KindReceiver, rc.ReceiverID)]
	if !ok {
		return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("route %s: receiver_id %q not found in receivers", rc.ID, rc.ReceiverID))
	}
	if st, ok := recv.value.(interface{ SetStopTimeout(time.Duration) }); ok {
		// A receiver that holds messages for a stopped route (the AMQP
		// linger) holds them no longer than the route's stop timeout.
		st.SetStopTimeout(b.file.Bridge.ShutdownTimeout)
	}
	r := runtime.Route{
		ID: rc.ID, ReceiverID: rc.ReceiverID, Receiver: recv.value.(ports.Receiver),
		DeliveryMode: rc.RuntimeDeliveryMode(), DispatchMode: rc.RuntimeDispatchMode(),
		TrustBridgeHeaders: rc.TrustBridgeHeaders,
		Policy:             rc.RuntimePolicy(),
	}
	r.Policy.Outbox = rc.RuntimeOutboxPolicy()
	bindings := map[string]config.Binding{}
	for _, bc := range b.file.Bindings {
		bindings[bc.ID] = bc
	}
	rb := make([]routing.Binding, 0, len(rc.Bindings))
	for _, id := range rc.Bindings {
		bc, ok := bindings[id]
		if !ok {
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("route %s: binding %q not found in bindings", rc.ID, id))
		}
		snd, ok := b.comps[key(registry.KindSender, bc.SenderID)]
		if !ok {
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("binding %s: sender_id %q not found in senders", id, bc.SenderID))
		}
		r.Bindings = append(r.Bindings, runtime.Binding{ID: id, SenderID: bc.SenderID, Sender: share(snd.value.(ports.Sender)), Address: bc.Address, DeliverAfter: bc.DeliverAfter})
		rb = append(rb, routing.Binding{ID: id, Address: bc.Address})
	}
	for _, name := range rc.Processors {
		if p, ok := b.opts.Processors[name]; ok {
			r.Processors = append(r.Processors, p)
			continue
		}
		c, ok := b.comps[key(registry.KindProcessor, name)]
		if !ok {
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("route %s: processor %q is neither declared under processors nor built in", rc.ID, name))
		}
		r.Processors = append(r.Processors, c.value.(ports.Processor))
	}
	log := b.log.With("route", rc.ID)
	if rc.Resolver != nil {
		res, err := routing.NewResolver(rc.Resolver.RoutingSpec(), rb, routing.WithLogger(log))
		if err != nil {
			return nil, fmt.Errorf("route %s: resolver: %w", rc.ID, err)
		}
		r.Resolver = res
	}
	opts := runtime.Options{Logger: log, Meter: b.opts.Meter, Tracer: b.tracer(), StopTimeout: b.file.Bridge.ShutdownTimeout}
	if b.stores.dlq != nil {
		opts.DLQ = b.stores.dlq
	}
	if b.stores.outbox != nil {
		opts.Outbox = b.stores.outbox
	}
	gate, keys, err := b.leases.ensure(b.file, rc)
	if err != nil {
		return nil, fmt.Errorf("route %s: %w", rc.ID, err)
	}
	opts.LeaseGate = gate
	var fence *termFence
	if connectsAfterLease(rc) {
		// Deliveries in hand when the lease goes (a process woken after
		// a pause) are neither sent nor settled: the new holder gets them.
		fence = &termFence{}
		opts.Fence = fence.held
	}
	rt, err := runtime.New([]runtime.Route{r}, opts)
	if err != nil {
		return nil, err
	}
	rr := &routeRun{cfg: rc, gen: gen, rt: rt, log: log, state: stateReady, leaseKeys: keys}
	if connectsAfterLease(rc) {
		if rr.excl, err = b.exclusiveOf(rc, r, opts, keys); err != nil {
			return nil, err
		}
		rr.excl.fence = fence
	}
	if rr.probe, err = b.sourceProbeOf(rc, rr, r.Receiver); err != nil {
		return nil, err
	}
	return rr, nil
}

// start runs the route's runtime until parent ends or stop is called.
func (rr *routeRun) start(parent context.Context) {
	ctx, cancel := context.WithCancel(parent)
	rr.mu.Lock()
	rr.cancel, rr.done, rr.state = cancel, make(chan struct{}), stateRunning
	done := rr.done
	rr.mu.Unlock()
	if rr.probe != nil {
		rr.excl.mgr.SetHealthProbe(rr.probe)
	}
	go func() {
		defer close(done)
		var err error
		if rr.excl != nil {
			err = rr.runExclusive(ctx)
		} else {
			err = rr.rt.Run(ctx)
		}
		rr.mu.Lock()
		defer rr.mu.Unlock()
		if err != nil {
			rr.state, rr.lastErr = stateFailed, err.Error()
			rr.log.Error("route stopped with an error", "err", err)
			return
		}
		rr.state = stateReady
	}()
}

// stop stops the runtime and waits for it: in-flight deliveries settle or
// are left to their source within the shutdown timeout.
func (rr *routeRun) stop() error {
	rr.mu.Lock()
	cancel, done := rr.cancel, rr.done
	rr.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	<-done
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.state == stateFailed {
		return fault.ErrUnavailable.WithMessage(rr.lastErr)
	}
	return nil
}

// setState records the route's state.
func (rr *routeRun) setState(state, lastErr string) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.state, rr.lastErr = state, lastErr
}

// currentRuntime returns the runtime of the route's current term.
func (rr *routeRun) currentRuntime() *runtime.Runtime {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.rt
}

// setRuntime replaces the runtime for a new term.
func (rr *routeRun) setRuntime(rt *runtime.Runtime) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.rt = rt
}

// status returns the route's state and last error.
func (rr *routeRun) status() (string, string) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.state, rr.lastErr
}
