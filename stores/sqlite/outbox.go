package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Persist stores all records in one transaction, shared with whatever
// other writes are waiting, and returns once it committed. It sets
// CreatedAt (and NextAttemptAt, when zero) on recs and, once the records
// are stored, the ID of each record that came without one. A record
// without an envelope fails the call with INVALID_PAYLOAD, an ID that is
// already stored with DUPLICATE_RECORD; either way nothing is stored.
func (s *Store) Persist(ctx context.Context, recs []ports.OutboxRecord) error {
	if len(recs) == 0 {
		return nil
	}
	now := s.clock.Now()
	// The writer reads only this call's own copies: a caller that gave
	// up may reuse recs.
	call := newPersistCall(len(recs))
	for i := range recs {
		r := &recs[i]
		if r.Envelope == nil {
			return fault.ErrInvalidPayload.WithMessage(fmt.Sprintf("outbox record %d has no envelope", i))
		}
		r.CreatedAt = now
		if r.NextAttemptAt.IsZero() {
			r.NextAttemptAt = now
		}
		row := &call.rows[i]
		fillRecordArgs(&row.vals, r, now)
		row.callerID = r.ID
	}
	err := s.w.do(ctx, len(recs) > 1, call.insert)
	if err != nil {
		return opError("persist", err)
	}
	// rows were written by the writer and are read here only after do
	// returned nil, which orders the two.
	for i := range recs {
		if row := &call.rows[i]; row.callerID == "" {
			recs[i].ID = formatRecordID(row.seq, row.salt())
		}
	}
	return nil
}

// persistCall is one Persist's rows, allocated together; a call with one
// record, the usual case, costs one allocation here.
type persistCall struct {
	rows []persistRow
	one  [1]persistRow
}

// persistRow is one record in driver form, its caller's ID (empty for a
// store-made one) and, once inserted, its sequence number.
type persistRow struct {
	vals     [recordArgCount + 1]driver.NamedValue
	callerID string
	seq      int64
}

// args are the values insertRecord binds, ?1 to ?16.
func (r *persistRow) args() []driver.NamedValue { return r.vals[:recordArgCount] }

// salt is the random salt of a store-made ID, bound as ?1.
func (r *persistRow) salt() int64 { return r.vals[0].Value.(int64) }

func newPersistCall(n int) *persistCall {
	c := &persistCall{}
	if n == 1 {
		c.rows = c.one[:]
	} else {
		c.rows = make([]persistRow, n)
	}
	return c
}

func (c *persistCall) insert(tx *writeTx) error {
	for i := range c.rows {
		row := &c.rows[i]
		seq, err := tx.insertRecord(row.callerID, row.args())
		if err != nil {
			return err
		}
		row.seq = seq
	}
	return nil
}

// recordArgCount is the number of values insertRecordSQL binds.
const recordArgCount = 16

// fillRecordArgs fills vals with the values insertRecord binds for r, as
// ?1 to ?16, in driver form: Persist builds them on the caller's
// goroutine, so the writer only binds them. vals has room for
// insertExtRecord's ?17. now is boxed once for both columns that hold it.
func fillRecordArgs(vals *[recordArgCount + 1]driver.NamedValue, r *ports.OutboxRecord, now time.Time) {
	env := envelopeColsOf(r.Envelope)
	var headers any
	if env.headers.Valid {
		headers = env.headers.String
	}
	created := any(encodeTime(now))
	next := created
	if !r.NextAttemptAt.Equal(now) {
		next = encodeTime(r.NextAttemptAt)
	}
	for i, v := range [recordArgCount]any{
		newSalt(), r.Partition, r.RouteID, r.BindingID, r.Address,
		env.id, env.subject, headers, env.created, env.expires, env.payload,
		int64(r.ReplayCount), r.LastError, created, encodeTime(r.FirstAttemptAt), next,
	} {
		vals[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
}

// insertRecord stores one row: a store-made ID when callerID is empty,
// whose sequence number it returns, else callerID, which must not name a
// stored record.
func (tx *writeTx) insertRecord(callerID string, row []driver.NamedValue) (int64, error) {
	if callerID == "" {
		res, err := tx.stmts.insertRecord.run(row)
		if err != nil {
			return 0, err
		}
		return res.LastInsertId()
	}
	duplicate := fault.ErrDuplicateRecord.WithMessage(fmt.Sprintf("outbox record %q already exists", callerID))
	if seq, salt, ok := parseRecordID(callerID); ok {
		var one int
		switch err := tx.stmts.storeMadeExists.QueryRow(seq, salt).Scan(&one); {
		case err == nil:
			return 0, duplicate
		case !errors.Is(err, sql.ErrNoRows):
			return 0, err
		}
	}
	ext := append(row, driver.NamedValue{Ordinal: len(row) + 1, Value: callerID})
	res, err := tx.stmts.insertExtRecord.run(ext)
	if err != nil {
		if isUniqueViolation(err) {
			return 0, duplicate
		}
		return 0, err
	}
	return res.LastInsertId()
}

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
	dest = append(dest, &r.ReplayCount, &r.LastError, &created, &first, &nextTime)
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
