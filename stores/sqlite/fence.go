package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// fenceCounter counts the guarded writes fence refused, for Stats and the
// gobridge_sqlite_fenced_writes_total metric.
type fenceCounter struct {
	n      atomic.Uint64
	metric telemetry.Counter
}

func (c *fenceCounter) add() {
	c.n.Add(1)
	c.metric.Add(1)
}

// fence admits a guarded write on partition: it fails with
// STALE_FENCING_TOKEN, changing nothing, when a higher token version was
// seen on partition, and otherwise records tok's version as the highest.
// Versions are stored as the int64 with the same bits, and compared as
// uint64 in Go.
func (tx *writeTx) fence(partition string, tok ports.LeaseToken) error {
	var stored int64
	err := tx.stmts.fenceGet.QueryRow(partition).Scan(&stored)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		stored = 0
	case err != nil:
		return err
	}
	switch highest := uint64(stored); {
	case tok.Version < highest:
		tx.fenced.add()
		return fault.ErrStaleFencingToken.WithMessage(fmt.Sprintf(
			"token version %d of %q is below version %d seen on partition %q",
			tok.Version, tok.Owner, highest, partition))
	case tok.Version > highest:
		if _, err := tx.stmts.fenceSet.Exec(partition, int64(tok.Version)); err != nil {
			return err
		}
	}
	return nil
}
