// Package httpapi serves gobridge's two HTTP APIs: the monitor API that
// probes and scrapers call (health, liveness, readiness, deep health, route
// states and Prometheus metrics) and the admin API that operators call
// (bridge status, dead-letter queue inspection and repair, configuration
// and reload).
//
// The package knows nothing about how the bridge is assembled: everything
// it reports or changes goes through a Backend, which the composition root
// implements. Every response body is JSON except the Prometheus exposition;
// errors have the shape {"error":{"code":"NOT_FOUND","message":"..."}} with
// a code from core/fault.
//
// Authentication is a bearer key. The admin API accepts only the admin key;
// the monitor API accepts the monitor key or the admin key, except for the
// health, live and ready probes, which are open. Keys are compared in
// constant time on their SHA-256 digests. Server.RotateKeys replaces the
// keys of a running server, which is how a configuration reload applies
// new keys; the keys it replaces stay valid for a chosen overlap.
package httpapi
