// Package bench is the process-level benchmark harness: load generators,
// a counting sink and hand-written reference forwarders per protocol pair.
package bench
