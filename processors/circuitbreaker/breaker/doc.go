// Package breaker is a self-contained circuit breaker state machine with no
// knowledge of messages or routes. The processor in the parent package keeps
// one Breaker per key; other code may use it directly.
//
// A breaker starts closed and lets every call through. After
// FailureThreshold failures in a row it opens and refuses calls until
// ResetTimeout has passed on its clock. It then turns half-open and admits at
// most HalfOpenMaxProbes calls at a time as probes: SuccessThreshold
// successes in a row close it again, and a single failure re-opens it.
//
// Each admitted call gets a Token carrying the breaker's generation, a
// number that changes on every state transition. An outcome recorded with a
// token from an earlier generation is counted as stale and otherwise
// ignored, so a slow call that started before the breaker tripped cannot
// close or re-open it afterwards.
//
// A Breaker is safe for concurrent use. The closed-state admit and record
// take one short mutex section each and allocate nothing.
package breaker
