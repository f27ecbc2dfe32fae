package sqlite

import (
	"context"
	"errors"
	"fmt"

	"github.com/mattn/go-sqlite3"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// errClosed is returned by every call on a closed store.
func errClosed() error {
	return fault.ErrUnavailable.WithMessage("sqlite store is closed")
}

// opError wraps a database failure of operation op. Such failures are
// transient (UNAVAILABLE): the caller retries rather than drops a message.
// Context errors pass through unchanged.
func opError(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	return fault.ErrUnavailable.WithMessage(fmt.Sprintf("sqlite store: %s", op)).Wrap(err)
}

// sqliteCode returns the primary SQLite result code in err's chain.
func sqliteCode(err error) (sqlite3.ErrNo, bool) {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code, true
	}
	var sp *sqlite3.Error
	if errors.As(err, &sp) && sp != nil {
		return sp.Code, true
	}
	return 0, false
}

// isUniqueViolation reports whether err is a UNIQUE or PRIMARY KEY
// constraint failure, which SQLite rolls back at statement level.
func isUniqueViolation(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.ExtendedCode == sqlite3.ErrConstraintUnique || se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey
}
