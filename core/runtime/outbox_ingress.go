package runtime

import (
	"context"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// errOutboxFull pushes ingress back while a partition holds MaxDepth
// undelivered records. It is transient: the source retries after the
// backoff, and the attempt does not count against the replay budget.
var errOutboxFull = fault.ErrUnavailable.WithMessage("outbox partition is at max_outbox_depth")

// partitionOf names the outbox partition of a route's binding. Each binding
// drains on its own, so a slow target does not hold up the others.
func partitionOf(routeID, bindingID string) string { return routeID + "/" + bindingID }

// persist writes one outbox record per plan, all or none, after checking
// that no partition is full. Failures are recorded on the worker; store and
// capacity failures are marked as not the message's fault.
func (w *worker) persist(ctx context.Context, env *messaging.Envelope, plans []ports.DispatchPlan) {
	rn := w.rn
	recs := make([]ports.OutboxRecord, 0, len(plans))
	for _, p := range plans {
		b := rn.bindings[p.BindingID]
		if b == nil {
			w.failures = append(w.failures, dispatchFailure{bindingID: p.BindingID, address: p.Address,
				err: fault.ErrNotFound.WithMessage("resolver chose binding \"" + p.BindingID + "\", which is not on the route")})
			return
		}
		addr := p.Address
		if addr == "" {
			addr = b.Address
		}
		part := partitionOf(rn.route.ID, b.ID)
		if err := rn.depth.admit(ctx, part); err != nil {
			w.uncounted = true
			w.failures = append(w.failures, dispatchFailure{bindingID: b.ID, address: addr, err: err})
			return
		}
		recs = append(recs, ports.OutboxRecord{
			Partition: part, RouteID: rn.route.ID, BindingID: b.ID, Address: addr,
			Envelope: outboundEnvelope(env, b, p),
		})
	}
	pctx, cancel := context.WithTimeout(ctx, rn.policy.SendTimeout)
	defer cancel()
	var sp telemetry.Span
	if rn.traced {
		pctx, sp = rn.startPersist(pctx, env, recs)
	}
	err := rn.opts.Outbox.Persist(pctx, recs)
	if sp != nil {
		endWithFault(sp, err)
	}
	if err != nil {
		w.uncounted = true
		if _, ok := fault.As(err); !ok {
			err = fault.ErrUnavailable.WithMessage("outbox persist failed").Wrap(err)
		}
		w.failures = append(w.failures, dispatchFailure{err: err})
		return
	}
	for _, r := range recs {
		rn.depth.added(r.Partition, 1)
	}
}

// outboundEnvelope is env as one destination should receive it: env itself
// when the binding and plan add no headers, else a copy with them merged.
func outboundEnvelope(env *messaging.Envelope, b *Binding, p ports.DispatchPlan) *messaging.Envelope {
	if len(b.Headers) == 0 && len(p.Headers) == 0 {
		return env
	}
	out := env.Clone()
	for k, v := range b.Headers {
		out.Headers[k] = v
	}
	for k, v := range p.Headers {
		out.Headers[k] = v
	}
	return out
}

// depthGate caches partition depths for DepthCacheTTL so that ingress does
// not query the store for every message.
type depthGate struct {
	store ports.OutboxStore
	clock ports.Clock
	max   int
	ttl   time.Duration

	mu    sync.Mutex
	parts map[string]*depthReading
}

type depthReading struct {
	depth int
	at    time.Time
}

func newDepthGate(store ports.OutboxStore, clk ports.Clock, o OutboxPolicy) *depthGate {
	return &depthGate{store: store, clock: clk, max: o.MaxDepth, ttl: o.DepthCacheTTL, parts: map[string]*depthReading{}}
}

// admit returns errOutboxFull when part is at capacity, or the store's
// error (transient) when its depth cannot be read.
func (g *depthGate) admit(ctx context.Context, part string) error {
	now := g.clock.Now()
	g.mu.Lock()
	r := g.parts[part]
	fresh := r != nil && now.Sub(r.at) < g.ttl
	var depth int
	if fresh {
		depth = r.depth
	}
	g.mu.Unlock()
	if !fresh {
		d, err := g.store.Depth(ctx, part)
		if err != nil {
			return fault.ErrUnavailable.WithMessage("outbox depth query failed").Wrap(err)
		}
		g.mu.Lock()
		g.parts[part] = &depthReading{depth: d, at: now}
		g.mu.Unlock()
		depth = d
	}
	if depth >= g.max {
		return errOutboxFull.With("partition", part)
	}
	return nil
}

// added accounts for n records persisted since the last reading, so the
// cached depth does not lag behind a burst.
func (g *depthGate) added(part string, n int) {
	g.mu.Lock()
	if r := g.parts[part]; r != nil {
		r.depth += n
	}
	g.mu.Unlock()
}
