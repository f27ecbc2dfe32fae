package memory

import "github.com/gobridge-oss/gobridge/core/ports"

var _ ports.Volatile = (*Store)(nil)

// Volatile reports true: the store lives in the process's memory, so the
// runtime drains its outbox at stop and reports what it still holds.
func (*Store) Volatile() bool { return true }
