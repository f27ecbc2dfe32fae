// Package runtime runs routes: for every route it starts the receiver,
// hands each delivery through the processor chain to the resolved bindings'
// senders, and settles the delivery with its source according to the
// outcome and the route's policy.
//
// A Runtime is built from Route values with New, which checks every route
// and reports all problems at once. Run starts one runner per route and
// blocks until its context ends; it then stops intake, lets in-flight
// deliveries finish within Options.StopTimeout, leaves the rest unsettled so
// their sources redeliver them, and finally closes the senders.
//
// # Reading order
//
// One message's way through the package, file by file:
//
//   - route.go, policy.go, outbox_policy.go: what a route is and the
//     policy that tunes it; validate.go checks both.
//   - runtime.go: New and Run, start and graceful stop of every route.
//   - runner.go: one route; emit hands a delivery to a worker (or, for
//     receivers whose caller waits, inline.go handles it on the caller's
//     goroutine).
//   - worker.go: one delivery from hand-over to settlement: header rules,
//     the processor chain, then dispatch.
//   - dispatch.go: resolve the destinations and send to each
//     (direct_hold), or persist one outbox record per destination
//     (shared_outbox, outbox_ingress.go).
//   - send.go: the send path of both modes; sendguard.go and watchdog.go
//     bound a worker's sends by send_timeout without a timer per message.
//   - outcome.go: the outcome table. decide maps one attempt's facts and
//     the policy to ack, retry after a delay, dead-letter, drop or leave
//     unsettled; it is the only place those rules live.
//   - lease.go: while a worker holds a leased delivery (ports.Leased), it
//     extends the source's lease before it runs out.
//   - settle.go: a worker carries out decide's verdict with the source
//     (Ack, Retry) and the DLQ; attempts.go and trackkey.go remember the
//     failures of messages whose source does not count them.
//   - drainer.go, drain_group.go, drain_deliver.go, drain_settle.go: the
//     outbox drainers: claim a batch, send it, carry out decide's verdict
//     for each record (complete, replay, dead-letter).
//   - redrive.go: an operator sends a DLQ entry through its route again.
//   - metrics.go: instruments; they observe sends and settlements but make
//     none.
//   - tracing.go: with a tracer (Options.Tracer), the span of each step
//     (receive, processors, dispatch, send, settle, outbox persist and
//     drain, DLQ write) and the trace context carried in and out of the
//     headers; nothing of it runs for an untraced route.
package runtime
