package fault

import (
	"context"
	"errors"
	"time"
)

// As returns the first BridgeError in err's chain. A nil *BridgeError
// stored in an error interface does not count.
func As(err error) (*BridgeError, bool) {
	var be *BridgeError
	if errors.As(err, &be) && be != nil {
		return be, true
	}
	return nil, false
}

// ClassOf returns the class of err: the class of the first BridgeError in
// its chain; ClassTransient for a context deadline or for any error that is
// not a BridgeError. A nil error has class 0.
func ClassOf(err error) Class {
	if err == nil {
		return 0
	}
	if be, ok := As(err); ok {
		return be.class
	}
	return ClassTransient
}

// CodeOf returns the code of the first BridgeError in err's chain. A context
// deadline maps to CodeTimeout, a cancellation or anything else to
// CodeInternal, and nil to the empty code.
func CodeOf(err error) Code {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		if be, ok := As(err); ok {
			return be.code
		}
		return CodeTimeout
	}
	if be, ok := As(err); ok {
		return be.code
	}
	return CodeInternal
}

// IsRecoverable reports whether retrying may help: true for transient
// errors and for errors of unknown origin.
func IsRecoverable(err error) bool { return ClassOf(err) == ClassTransient }

// RetryAfter returns the largest retry hint found on any BridgeError in
// err's chain, or zero.
func RetryAfter(err error) time.Duration {
	var d time.Duration
	for err != nil {
		if be, ok := err.(*BridgeError); ok && be.retryAfter > d {
			d = be.retryAfter
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				d = max(d, RetryAfter(e))
			}
			return d
		default:
			return d
		}
	}
	return d
}
