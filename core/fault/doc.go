// Package fault defines the one structured error type used on the message
// path, its classes and codes, the sentinels every plugin shares, and the
// helpers that classify arbitrary errors.
//
// The class decides what a route does with a failed message: transient
// errors are retried, permanent ones go to the dead-letter queue, rejected
// ones are dropped with a metric, and expired ones follow the route's expiry
// policy. Errors that are not a *BridgeError are treated as transient, so
// third-party failures are retried rather than lost.
package fault
