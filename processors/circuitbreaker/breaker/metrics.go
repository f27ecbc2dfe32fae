package breaker

import "time"

// Metrics is a snapshot of one breaker's counters.
type Metrics struct {
	// Key is the name given with WithKey.
	Key string `json:"key"`
	// State is the state the next Allow would see: an open breaker whose
	// reset timeout has passed reports HalfOpen.
	State State `json:"state"`
	// Generation is the current generation; it grows by one per
	// transition.
	Generation uint64 `json:"generation"`
	// TotalRequests counts admitted calls.
	TotalRequests uint64 `json:"total_requests"`
	// TotalRejections counts calls Allow refused.
	TotalRejections uint64 `json:"total_rejections"`
	// TotalSuccesses, TotalFailures and TotalIgnored count recorded
	// outcomes of the call's own generation.
	TotalSuccesses uint64 `json:"total_successes"`
	TotalFailures  uint64 `json:"total_failures"`
	TotalIgnored   uint64 `json:"total_ignored"`
	// ConsecutiveFailures and ConsecutiveSuccesses are the current runs.
	// Both restart at zero when the breaker closes or turns half-open;
	// opening keeps the failure run that tripped it.
	ConsecutiveFailures  int `json:"consecutive_failures"`
	ConsecutiveSuccesses int `json:"consecutive_successes"`
	// StaleOutcomes counts outcomes recorded with a token from an earlier
	// generation; they changed nothing.
	StaleOutcomes uint64 `json:"stale_outcomes"`
	// ProbesInFlight is the number of half-open probes not yet recorded.
	ProbesInFlight int `json:"probes_in_flight"`
	// LastFailureTime is when the last counted failure was recorded; zero
	// when there was none.
	LastFailureTime time.Time `json:"last_failure_time"`
}
