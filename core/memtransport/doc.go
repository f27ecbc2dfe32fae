// Package memtransport is an in-process transport for tests and
// benchmarks. It implements the receiving side (Receiver and its
// deliveries) and the sending side (Sender, BatchSender) of core/ports
// without any network, and records what happened to every message so that
// tests can assert on outcomes: which messages were acked or retried, which
// deliveries are still unsettled, and whether any delivery was settled more
// than once.
//
// Every type is safe for concurrent use and is meant to be cheap enough to
// sit inside benchmarks of the runtime: a Sender in discard mode does not
// allocate, and a publish, emit and ack round trip allocates only the
// delivery (with its private copy of the envelope).
//
// Tests wait for outcomes with the Wait* methods, which block on internal
// notifications until a condition holds or the context ends; they never
// poll.
package memtransport
