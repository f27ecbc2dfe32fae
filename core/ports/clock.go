package ports

import "time"

// Clock is the time source of the runtime, injected so that tests can run
// deterministically. core/clock provides the system clock and a fake.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that fires once after d.
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer created by a Clock.
type Timer interface {
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it did.
	Stop() bool
	// Reset re-arms the timer to fire after d.
	Reset(d time.Duration) bool
}
