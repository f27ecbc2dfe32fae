package runtime

import (
	"context"
	"strconv"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Span names the runtime opens (see docs/tracing.md). Everything here runs
// only when the route's tracer is not the no-op one (runner.traced), so an
// untraced route pays one branch per step and allocates nothing.
const (
	spanReceive  = "gobridge.receive"
	spanProcess  = "gobridge.process"
	spanDispatch = "gobridge.dispatch"
	spanSend     = "gobridge.send"
	spanSettle   = "gobridge.settle"
	spanPersist  = "gobridge.outbox.persist"
	spanDrain    = "gobridge.outbox.drain"
	spanDLQ      = "gobridge.dlq.write"
	eventRetry   = "gobridge.retry"
)

// Attribute keys of the runtime's spans.
const (
	attrRoute       = "gobridge.route"
	attrReceiver    = "gobridge.receiver"
	attrBinding     = "gobridge.binding"
	attrAddress     = "messaging.destination.name"
	attrMessageID   = "messaging.message.id"
	attrProcessor   = "gobridge.processor"
	attrAttempt     = "gobridge.attempt"
	attrFault       = "gobridge.fault.code"
	attrOutcome     = "gobridge.outcome"
	attrDelayMS     = "gobridge.retry.delay_ms"
	attrRecord      = "gobridge.outbox.record"
	attrTrusted     = "gobridge.trusted_upstream"
	attrDLQCategory = "gobridge.dlq.category"
)

// processorNames names each processor of the route for its span, once.
func processorNames(ps []ports.Processor) []string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name()
		if names[i] == "" {
			names[i] = strconv.Itoa(i)
		}
	}
	return names
}

// startReceive opens the root span of one delivery. A trusted upstream's
// trace context (a bridge before this one) becomes the parent; an
// untrusted producer's is only linked, so that it cannot graft the
// bridge's work into a trace of its choosing, while the link still lets a
// viewer walk from its trace to this one.
func (w *worker) startReceive(ctx context.Context, env *messaging.Envelope) (context.Context, telemetry.Span) {
	rn := w.rn
	trusted := rn.route.TrustBridgeHeaders
	o := telemetry.StartOptions{Kind: telemetry.KindConsumer}
	if trusted {
		ctx = rn.tracer.Extract(ctx, env.Headers)
	} else {
		o.NewRoot = true
		if remote := rn.tracer.Extract(context.Background(), env.Headers); remote != context.Background() {
			o.Links = []context.Context{remote}
		}
	}
	ctx, sp := rn.tracer.Start(ctx, spanReceive, o)
	if sp.Recording() {
		sp.SetAttributes(telemetry.String(attrRoute, rn.route.ID), telemetry.String(attrReceiver, rn.route.ReceiverID),
			telemetry.String(attrMessageID, env.ID), boolAttr(attrTrusted, trusted))
	}
	return ctx, sp
}

func boolAttr(key string, v bool) telemetry.Attr {
	if v {
		return telemetry.Int(key, 1)
	}
	return telemetry.Int(key, 0)
}

// tracedProcessor wraps processor i of the chain in a span of its own.
func (rn *runner) tracedProcessor(i int, p ports.Processor, next ports.ProcessorFunc) ports.ProcessorFunc {
	attr := telemetry.String(attrProcessor, rn.procNames[i])
	return func(ctx context.Context, env *messaging.Envelope) error {
		ctx, sp := rn.tracer.Start(ctx, spanProcess, telemetry.StartOptions{})
		if sp.Recording() {
			sp.SetAttributes(attr)
		}
		err := p.Process(ctx, env, next)
		sp.End(err)
		return err
	}
}

// startSend opens the span of one send to binding at addr.
func (rn *runner) startSend(ctx context.Context, binding, addr string, attempt int) (context.Context, telemetry.Span) {
	ctx, sp := rn.tracer.Start(ctx, spanSend, telemetry.StartOptions{Kind: telemetry.KindProducer})
	if sp.Recording() {
		sp.SetAttributes(telemetry.String(attrRoute, rn.route.ID), telemetry.String(attrBinding, binding),
			telemetry.String(attrAddress, addr), telemetry.Int(attrAttempt, int64(attempt)))
	}
	return ctx, sp
}

// endWithFault ends sp, naming err's fault code when it failed.
func endWithFault(sp telemetry.Span, err error) {
	if err != nil {
		sp.SetAttributes(telemetry.String(attrFault, string(fault.CodeOf(err))))
	}
	sp.End(err)
}

// withTrace returns out carrying the trace context of ctx in its
// traceparent and tracestate, so that the next hop continues the trace.
// out is copied first when it is shared (the received envelope itself, or
// a stored record), so that no other reader sees the header change.
func (rn *runner) withTrace(ctx context.Context, out *messaging.Envelope, shared bool) *messaging.Envelope {
	if out == nil {
		return nil
	}
	if shared {
		out = out.Clone()
	}
	if out.Headers == nil {
		out.Headers = make(map[string]any, 2)
	}
	rn.tracer.Inject(ctx, out.Headers)
	return out
}

// sendAttempt is the 1-based number of the coming send of the delivery in
// hand: the source's redelivery count when it keeps one, else one more
// than the failures the bridge counted.
func (w *worker) sendAttempt() int {
	if rc, ok := w.d.(ports.RedeliveryCounter); ok {
		if n, ok := rc.RedeliveryCount(); ok {
			return n + 1
		}
	}
	if w.rn.attempts.active() {
		n, _ := w.rn.attempts.peek(w.key(), w.rn.opts.Clock.Now())
		return n + 1
	}
	return 1
}

// startDrain opens the span of one outbox record's delivery. Its parent
// is the persist span whose context was stored with the record, so the
// trace stays one from the source to the target; it also links to that
// span, marking the asynchronous hand-off (the drain may run much later,
// on another instance).
func (rn *runner) startDrain(ctx context.Context, r ports.OutboxRecord) (context.Context, telemetry.Span) {
	var o telemetry.StartOptions
	if r.Envelope != nil {
		if stored := rn.tracer.Extract(ctx, r.Envelope.Headers); stored != ctx {
			ctx = stored
			o.Links = []context.Context{stored}
		}
	}
	ctx, sp := rn.tracer.Start(ctx, spanDrain, o)
	if sp.Recording() {
		sp.SetAttributes(telemetry.String(attrRoute, rn.route.ID), telemetry.String(attrBinding, r.BindingID),
			telemetry.String(attrRecord, r.ID), telemetry.Int(attrAttempt, int64(r.ReplayCount+1)))
	}
	return ctx, sp
}

// recordTrace is the trace state of one claimed record while a drainer
// delivers it.
type recordTrace struct {
	ctx   context.Context
	drain telemetry.Span
	send  telemetry.Span
}

// tracedOutbound opens the send span of record i and returns its
// envelope carrying the send span's context.
func (dr *drainer) tracedOutbound(tr []recordTrace, recs []ports.OutboxRecord, i int) *messaging.Envelope {
	if tr == nil {
		return recs[i].Envelope
	}
	r := recs[i]
	ctx, sp := dr.rn.startSend(tr[i].ctx, r.BindingID, r.Address, r.ReplayCount+1)
	tr[i].send = sp
	return dr.rn.withTrace(ctx, r.Envelope, true)
}

// endSends ends the send spans of a batch with each record's result.
func endSends(tr []recordTrace, results []error) {
	for i := range tr {
		if tr[i].send != nil {
			endWithFault(tr[i].send, results[i])
			tr[i].send = nil
		}
	}
}

// tracedSend is send inside a send span.
func (w *worker) tracedSend(ctx context.Context, b *Binding, p ports.DispatchPlan, addr string, env *messaging.Envelope) error {
	ctx, sp := w.rn.startSend(ctx, b.ID, addr, w.sendAttempt())
	err := w.send(ctx, b, p, addr, env)
	endWithFault(sp, err)
	return err
}

// tracedSettle is settleSafely inside a settle span.
func (w *worker) tracedSettle(ctx context.Context, d ports.Delivery, env *messaging.Envelope, err error) {
	ctx, sp := w.rn.tracer.Start(ctx, spanSettle, telemetry.StartOptions{})
	w.settleSafely(ctx, d, env, err)
	sp.SetAttributes(telemetry.String(attrOutcome, string(w.outcome.Outcome)))
	sp.End(nil)
}

// startPersist opens the outbox persist span and stores its context in
// each record's envelope, so that the drain continues the trace (see
// startDrain).
func (rn *runner) startPersist(ctx context.Context, env *messaging.Envelope, recs []ports.OutboxRecord) (context.Context, telemetry.Span) {
	ctx, sp := rn.tracer.Start(ctx, spanPersist, telemetry.StartOptions{})
	if sp.Recording() {
		sp.SetAttributes(telemetry.String(attrRoute, rn.route.ID), telemetry.Int("gobridge.outbox.records", int64(len(recs))))
	}
	for i := range recs {
		recs[i].Envelope = rn.withTrace(ctx, recs[i].Envelope, recs[i].Envelope == env)
	}
	return ctx, sp
}

// tracedDeadLetter is deadLetter inside a DLQ write span.
func (w *worker) tracedDeadLetter(ctx context.Context, env *messaging.Envelope, d ports.Delivery, err error, cat ports.DLQCategory) error {
	if !w.rn.traced {
		return w.deadLetter(env, d, err, cat)
	}
	_, sp := w.rn.tracer.Start(ctx, spanDLQ, telemetry.StartOptions{Attrs: []telemetry.Attr{
		telemetry.String(attrRoute, w.rn.route.ID), telemetry.String(attrDLQCategory, string(cat)),
	}})
	werr := w.deadLetter(env, d, err, cat)
	endWithFault(sp, werr)
	return werr
}

// tracedDeadLetter is deadLetter inside a DLQ write span when traced.
func (dr *drainer) tracedDeadLetter(ctx context.Context, r ports.OutboxRecord, v verdict, first time.Time, traced bool) error {
	if !traced {
		return dr.deadLetter(ctx, r, v, first)
	}
	ctx, sp := dr.rn.tracer.Start(ctx, spanDLQ, telemetry.StartOptions{Attrs: []telemetry.Attr{
		telemetry.String(attrRoute, dr.rn.route.ID), telemetry.String(attrBinding, r.BindingID),
		telemetry.String(attrDLQCategory, string(v.category)),
	}})
	werr := dr.deadLetter(ctx, r, v, first)
	endWithFault(sp, werr)
	return werr
}

// isBase reports whether ctx is the worker's base context, or, on a traced
// route, one that only adds values (the spans) to it: it is then cancelled
// exactly when the base context is, and sends may use the send guard.
func (w *worker) isBase(ctx context.Context) bool {
	return ctx == w.baseCtx || (w.rn.traced && ctx.Done() == w.baseCtx.Done())
}

// isGuarded is isBase for the delivery's guarded context.
func (w *worker) isGuarded(ctx context.Context) bool {
	return ctx == w.guarded || (w.rn.traced && ctx.Done() == w.guarded.Done())
}

// valuesCtx is a context cancelled like Context that also has the values
// of vals: a traced send runs under the send guard's context and still
// carries its span. Context's own values come first, so that the context
// package finds the guard's cancellation (context.Cause, children).
type valuesCtx struct {
	context.Context
	vals context.Context
}

// Value implements context.Context.
func (c *valuesCtx) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.vals.Value(key)
}

// recordTraceID is the sampled trace of record i's send, for exemplars;
// "" when the route is not traced.
func recordTraceID(tr []recordTrace, i int) string {
	if tr == nil || tr[i].send == nil {
		return ""
	}
	return telemetry.TraceIDOf(tr[i].send)
}
