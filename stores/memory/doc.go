// Package memory provides in-memory implementations of the store ports of
// core/ports: ports.OutboxStore, ports.DLQStore and ports.LeaseStore, all
// on one Store value. Nothing survives the process; the store suits tests,
// demos and standalone bridges that accept losing the outbox on a crash.
//
// A Store is safe for concurrent use. It copies every envelope on the way
// in and on the way out, so callers never share state with it.
package memory
