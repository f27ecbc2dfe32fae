package cluster

// State is where a Manager is in the lease lifecycle.
type State int

// Manager states.
const (
	// Idle: the lease is not held; the manager waits before trying again.
	Idle State = iota
	// Acquiring: an Acquire call is in progress.
	Acquiring
	// Active: the lease is held and the last renewal succeeded.
	Active
	// Renewing: the lease is held and a renewal is in progress, or the
	// last one failed and fewer than MaxRenewFails failed in a row.
	Renewing
	// SteppingDown: holders were told to stop and get the grace to
	// finish their in-flight writes.
	SteppingDown
	// Released: the lease was given back (or lost); the manager goes Idle
	// next, or stops.
	Released
)

// String names the state as logs and metrics do.
func (s State) String() string {
	switch s {
	case Idle:
		return "idle"
	case Acquiring:
		return "acquiring"
	case Active:
		return "active"
	case Renewing:
		return "renewing"
	case SteppingDown:
		return "stepping_down"
	case Released:
		return "released"
	}
	return "unknown"
}

// Holds reports whether the lease is held in state s.
func (s State) Holds() bool { return s == Active || s == Renewing }

// Step-down reasons, as logged and counted.
const (
	reasonRenewFailed = "renew_failed"
	reasonStale       = "stale_token"
	reasonStop        = "stop"
	reasonRequested   = "requested"
)
