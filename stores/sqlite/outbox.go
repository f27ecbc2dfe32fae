package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Claim marks up to limit due records of partition as claimed under tok
// and returns them in persist order. A claimed record becomes claimable
// again once the stale-claim age has passed without Complete or Replay.
func (s *Store) Claim(ctx context.Context, partition string, tok ports.LeaseToken, limit int) ([]ports.OutboxRecord, error) {
	if limit <= 0 {
		return nil, nil
	}
	var out []ports.OutboxRecord
	err := s.w.do(ctx, false, func(tx *writeTx) error {
		out = out[:0]
		if err := tx.fence(partition, tok); err != nil {
			return err
		}
		now := encodeTime(s.clock.Now())
		rows, err := tx.stmts.claim.Query(tok.Owner, int64(tok.Version), now,
			addClamped(now, s.staleClaimAge), partition, limit, int64(math.MinInt64))
		if err != nil {
			return err
		}
		defer rows.Close()
		var seqs []int64
		for rows.Next() {
			rec, seq, err := scanRecord(rows)
			if err != nil {
				return err
			}
			out = append(out, rec)
			seqs = append(seqs, seq)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		sortBySeq(out, seqs)
		return nil
	})
	if err != nil {
		return nil, opError("claim", err)
	}
	return out, nil
}

// Complete removes a delivered or dead-lettered record. An unknown ID is
// not an error.
func (s *Store) Complete(ctx context.Context, id string, tok ports.LeaseToken) error {
	err := s.w.do(ctx, false, func(tx *writeTx) error { return tx.complete(id, tok) })
	return opError("complete", err)
}

// CompleteBatch completes every record in ids in one transaction: all of
// them, or none when one is fenced off.
func (s *Store) CompleteBatch(ctx context.Context, ids []string, tok ports.LeaseToken) error {
	if len(ids) == 0 {
		return nil
	}
	made, callers := make([][2]int64, 0, len(ids)), []string{}
	for _, id := range ids {
		if seq, salt, ok := parseRecordID(id); ok {
			made = append(made, [2]int64{seq, salt})
		}
		// Any ID may also be a caller's ID that looks like a store-made
		// one; the lookup by ext_id finds those.
		callers = append(callers, id)
	}
	madeList, err := json.Marshal(made)
	if err != nil {
		return opError("complete batch", err)
	}
	callerList, err := json.Marshal(callers)
	if err != nil {
		return opError("complete batch", err)
	}
	err = s.w.do(ctx, len(ids) > 1, func(tx *writeTx) error { return tx.completeBatch(madeList, callerList, tok) })
	return opError("complete batch", err)
}

// completeBatch resolves the IDs to rows, fences each partition they
// belong to once, then deletes them all with one statement: three
// statements for the batch instead of three per record.
func (tx *writeTx) completeBatch(madeList, callerList []byte, tok ports.LeaseToken) error {
	rows, err := tx.stmts.resolveBatch.Query(string(madeList), string(callerList))
	if err != nil {
		return err
	}
	var (
		seqs  []int64
		parts []string
	)
	for rows.Next() {
		var (
			seq int64
			p   string
		)
		if err := rows.Scan(&seq, &p); err != nil {
			rows.Close()
			return err
		}
		seqs = append(seqs, seq)
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, p := range parts {
		if err := tx.fence(p, tok); err != nil {
			return err
		}
	}
	if len(seqs) == 0 {
		return nil
	}
	list, err := json.Marshal(seqs)
	if err != nil {
		return err
	}
	_, err = tx.stmts.deleteBatch.Exec(string(list))
	return err
}

func (tx *writeTx) complete(id string, tok ports.LeaseToken) error {
	seq, partition, found, err := tx.resolve(id)
	if err != nil || !found {
		return err
	}
	if err := tx.fence(partition, tok); err != nil {
		return err
	}
	_, err = tx.stmts.deleteRecord.Exec(seq)
	return err
}

// Replay releases a record after a failed attempt: it increments
// ReplayCount, stores cause's message as LastError and makes the record
// due at next. It fails with NOT_FOUND for an unknown record.
func (s *Store) Replay(ctx context.Context, id string, tok ports.LeaseToken, cause error, next time.Time) error {
	msg := ""
	if cause != nil {
		msg = cause.Error()
	}
	err := s.w.do(ctx, false, func(tx *writeTx) error {
		seq, partition, found, err := tx.resolve(id)
		if err != nil {
			return err
		}
		if !found {
			return fault.ErrNotFound.WithMessage(fmt.Sprintf("outbox record %q not found", id))
		}
		if err := tx.fence(partition, tok); err != nil {
			return err
		}
		_, err = tx.stmts.replay.Exec(seq, msg, encodeTime(next))
		return err
	})
	return opError("replay", err)
}

// Depth returns the number of records of partition not yet completed,
// claimed or not. It reads from the read pool and sees every committed
// write.
func (s *Store) Depth(ctx context.Context, partition string) (int, error) {
	var n int
	err := s.reads.QueryRowContext(ctx, "SELECT count(*) FROM outbox WHERE partition = ?", partition).Scan(&n)
	if err != nil {
		return 0, opError("depth", err)
	}
	return n, nil
}

// resolve finds the row and partition of the record id names.
func (tx *writeTx) resolve(id string) (seq int64, partition string, found bool, err error) {
	err = tx.stmts.resolveRecord.QueryRow(recordKey(id)...).Scan(&seq, &partition)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", false, nil
	}
	return seq, partition, err == nil, err
}

// scanRecord reads one row of outboxColumns.
func scanRecord(rows *sql.Rows) (ports.OutboxRecord, int64, error) {
	var (
		r                        ports.OutboxRecord
		seq, salt                int64
		extID                    sql.NullString
		env                      envelopeCols
		created, first, nextTime int64
	)
	dest := []any{&seq, &salt, &extID, &r.Partition, &r.RouteID, &r.BindingID, &r.Address}
	dest = append(dest, env.dest()...)
	dest = append(dest, &r.ReplayCount, &r.ClaimCount, &r.LastError, &created, &first, &nextTime)
	if err := rows.Scan(dest...); err != nil {
		return r, 0, err
	}
	r.ID = extID.String
	if !extID.Valid {
		r.ID = formatRecordID(seq, salt)
	}
	e, err := env.envelope()
	if err != nil {
		return r, 0, fmt.Errorf("outbox record %q: %w", r.ID, err)
	}
	r.Envelope = e
	r.CreatedAt, r.FirstAttemptAt, r.NextAttemptAt = decodeTime(created), decodeTime(first), decodeTime(nextTime)
	return r, seq, nil
}

// sortBySeq orders recs by their sequence numbers; RETURNING gives no
// order guarantee.
func sortBySeq(recs []ports.OutboxRecord, seqs []int64) {
	idx := make([]int, len(recs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(seqs[a], seqs[b]) })
	sorted := make([]ports.OutboxRecord, len(recs))
	for i, j := range idx {
		sorted[i] = recs[j]
	}
	copy(recs, sorted)
}
