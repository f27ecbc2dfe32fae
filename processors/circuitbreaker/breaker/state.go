package breaker

import (
	"errors"
	"fmt"
	"time"
)

// State is where a breaker is in its cycle.
type State uint8

// The breaker states.
const (
	// Closed lets every call through and counts failures.
	Closed State = iota
	// Open refuses every call until the reset timeout has passed.
	Open
	// HalfOpen admits a bounded number of probe calls.
	HalfOpen
)

// String returns "closed", "open" or "half-open".
func (s State) String() string {
	switch s {
	case Closed:
		return "closed"
	case Open:
		return "open"
	case HalfOpen:
		return "half-open"
	default:
		return fmt.Sprintf("state(%d)", uint8(s))
	}
}

// MarshalText renders the state as its name, so that JSON and logs show
// "open" rather than a number.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Outcome is what a call admitted by Allow turned out to be.
type Outcome uint8

// The outcomes a caller records.
const (
	// Ignored says the call tells nothing about the dependency's health
	// (for example, it was refused for bad input). It frees a probe slot
	// but neither extends nor breaks a run of successes or failures.
	Ignored Outcome = iota
	// Success counts toward closing a half-open breaker and ends a run of
	// failures.
	Success
	// Failure counts toward opening the breaker.
	Failure
)

// String returns "ignored", "success" or "failure".
func (o Outcome) String() string {
	switch o {
	case Ignored:
		return "ignored"
	case Success:
		return "success"
	case Failure:
		return "failure"
	default:
		return fmt.Sprintf("outcome(%d)", uint8(o))
	}
}

// Token is handed out by Allow and given back to Record. It remembers the
// generation the call was admitted in. The zero Token belongs to no
// generation and is always stale.
type Token struct{ gen uint64 }

// Generation returns the breaker generation the token was issued in.
func (t Token) Generation() uint64 { return t.gen }

// Transition describes one state change, as passed to the callback
// installed with WithOnStateChange.
type Transition struct {
	// Key is the key given with WithKey, empty otherwise.
	Key string
	// From and To are the states before and after.
	From, To State
	// Generation is the breaker's new generation. Callbacks run outside
	// the breaker's lock, so when transitions race a consumer can order
	// them by this number.
	Generation uint64
	// At is the clock reading when the transition happened.
	At time.Time
}

// Errors Allow wraps in a *RejectError. Match them with errors.Is.
var (
	// ErrOpen: the breaker is open and refuses calls.
	ErrOpen = errors.New("circuit breaker is open")
	// ErrProbeLimit: the breaker is half-open and every probe slot is in
	// use.
	ErrProbeLimit = errors.New("circuit breaker is half-open and all probe slots are busy")
)

// RejectError is returned by Allow when a call is refused.
type RejectError struct {
	// State is Open or HalfOpen.
	State State
	// RetryAfter is how long until an open breaker admits probes; zero
	// for a half-open breaker whose probe slots are busy.
	RetryAfter time.Duration
}

// Error describes the refusal.
func (e *RejectError) Error() string {
	if e.State == Open {
		return fmt.Sprintf("%v; probes start in %v", ErrOpen, e.RetryAfter)
	}
	return ErrProbeLimit.Error()
}

// Unwrap returns ErrOpen or ErrProbeLimit.
func (e *RejectError) Unwrap() error {
	if e.State == Open {
		return ErrOpen
	}
	return ErrProbeLimit
}
