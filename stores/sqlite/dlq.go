package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Write stores entry durably, in a transaction shared with other waiting
// writes. It fills the entry's ID when empty; an ID already stored fails
// with DUPLICATE_RECORD. A nil Envelope is stored and read back as nil.
func (s *Store) Write(ctx context.Context, entry ports.DLQEntry) error {
	if entry.ID == "" {
		entry.ID = messaging.NewID()
	}
	args := []any{entry.ID, entry.RouteID, entry.BindingID, entry.Address,
		entry.ErrorClass, entry.ErrorCode, entry.ErrorMessage, string(entry.Category), entry.Attempts,
		encodeTime(entry.FirstFailureAt), encodeTime(entry.LastFailureAt)}
	if entry.Envelope != nil {
		env := envelopeColsOf(entry.Envelope)
		args = append(append(args, true), env.args()...)
	} else {
		var env envelopeCols
		args = append(append(args, false), env.args()...)
	}
	err := s.w.do(ctx, false, func(tx *writeTx) error {
		if _, err := tx.stmts.insertEntry.Exec(args...); err != nil {
			if isUniqueViolation(err) {
				return fault.ErrDuplicateRecord.WithMessage(fmt.Sprintf("DLQ entry %q already exists", entry.ID))
			}
			return err
		}
		return nil
	})
	return opError("dlq write", err)
}

// List returns entries matching f oldest first, after cursor, at most
// limit (DefaultListLimit when 0 or less). NextCursor is empty on the last
// page. A cursor this store did not produce fails with INVALID_CONFIG.
func (s *Store) List(ctx context.Context, f ports.DLQFilter, cursor string, limit int) (ports.DLQPage, error) {
	after, err := decodeCursor(cursor)
	if err != nil {
		return ports.DLQPage{}, err
	}
	if limit <= 0 {
		limit = DefaultListLimit
	}
	where, args := whereFilter(f, after)
	rows, err := s.reads.QueryContext(ctx,
		"SELECT "+dlqColumns+" FROM dlq"+where+" ORDER BY seq LIMIT ?", append(args, limit+1)...)
	if err != nil {
		return ports.DLQPage{}, opError("dlq list", err)
	}
	defer rows.Close()
	var page ports.DLQPage
	var lastSeq int64
	for rows.Next() {
		if len(page.Entries) == limit {
			page.NextCursor = encodeCursor(lastSeq)
			break
		}
		e, seq, err := scanEntry(rows)
		if err != nil {
			return ports.DLQPage{}, opError("dlq list", err)
		}
		page.Entries = append(page.Entries, e)
		lastSeq = seq
	}
	if err := rows.Err(); err != nil {
		return ports.DLQPage{}, opError("dlq list", err)
	}
	return page, nil
}

// Get returns one entry; an unknown id fails with NOT_FOUND.
func (s *Store) Get(ctx context.Context, id string) (ports.DLQEntry, error) {
	rows, err := s.reads.QueryContext(ctx, "SELECT "+dlqColumns+" FROM dlq WHERE id = ?", id)
	if err != nil {
		return ports.DLQEntry{}, opError("dlq get", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return ports.DLQEntry{}, opError("dlq get", err)
		}
		return ports.DLQEntry{}, fault.ErrNotFound.WithMessage(fmt.Sprintf("DLQ entry %q not found", id))
	}
	e, _, err := scanEntry(rows)
	if err != nil {
		return ports.DLQEntry{}, opError("dlq get", err)
	}
	return e, nil
}

// Delete removes one entry; an unknown id fails with NOT_FOUND.
func (s *Store) Delete(ctx context.Context, id string) error {
	err := s.w.do(ctx, false, func(tx *writeTx) error {
		res, err := tx.stmts.deleteEntry.Exec(id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err != nil {
				return err
			}
			return fault.ErrNotFound.WithMessage(fmt.Sprintf("DLQ entry %q not found", id))
		}
		return nil
	})
	return opError("dlq delete", err)
}

// Purge deletes every entry matching f and returns how many it deleted.
func (s *Store) Purge(ctx context.Context, f ports.DLQFilter) (int, error) {
	where, args := whereFilter(f, 0)
	var n int64
	err := s.w.do(ctx, false, func(tx *writeTx) error {
		res, err := tx.conn.ExecContext(context.Background(), "DELETE FROM dlq"+where, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, opError("dlq purge", err)
	}
	return int(n), nil
}

// Count returns the number of entries matching f.
func (s *Store) Count(ctx context.Context, f ports.DLQFilter) (int, error) {
	where, args := whereFilter(f, 0)
	var n int
	if err := s.reads.QueryRowContext(ctx, "SELECT count(*) FROM dlq"+where, args...).Scan(&n); err != nil {
		return 0, opError("dlq count", err)
	}
	return n, nil
}

// scanEntry reads one row of dlqColumns.
func scanEntry(rows *sql.Rows) (ports.DLQEntry, int64, error) {
	var (
		e           ports.DLQEntry
		seq         int64
		category    string
		first, last int64
		hasEnv      bool
		env         envelopeCols
	)
	dest := []any{&seq, &e.ID, &e.RouteID, &e.BindingID, &e.Address,
		&e.ErrorClass, &e.ErrorCode, &e.ErrorMessage, &category, &e.Attempts,
		&first, &last, &hasEnv}
	if err := rows.Scan(append(dest, env.dest()...)...); err != nil {
		return e, 0, err
	}
	e.Category = ports.DLQCategory(category)
	e.FirstFailureAt, e.LastFailureAt = decodeTime(first), decodeTime(last)
	if hasEnv {
		m, err := env.envelope()
		if err != nil {
			return e, 0, fmt.Errorf("DLQ entry %q: %w", e.ID, err)
		}
		e.Envelope = m
	}
	return e, seq, nil
}
