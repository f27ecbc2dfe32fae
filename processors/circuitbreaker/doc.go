// Package circuitbreaker is a gobridge processor that stops sending to a
// dependency that keeps failing. It keeps one breaker (see the breaker
// sub-package) per key, asks it before calling the rest of the chain, and
// records how the call went: the dispatch runs inside the chain, so the
// send's outcome comes back through next.
//
// While a key's breaker is open the processor returns
// fault.ErrUnavailable with a retry hint equal to the time left before the
// breaker admits probes, so the route retries the message later instead of
// hammering the dependency.
//
// Breakers are held per bridge instance in a bounded LRU cache; a breaker
// with calls in flight is never evicted. Per-key metrics are available from
// Processor.Metrics, and counters go to the configured telemetry.Meter with
// the key label capped at a fixed number of distinct values.
package circuitbreaker
