package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
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
		row.n = fillRecordArgs(&row.vals, r, now)
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
	n        int // values in use: freshArgCount or recordArgCount
	callerID string
	seq      int64
}

// args are the values the record's insert binds, from ?1.
func (r *persistRow) args() []driver.NamedValue { return r.vals[:r.n] }

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

// The number of values insertRecordSQL and insertFreshSQL bind.
const (
	recordArgCount = 17
	freshArgCount  = 12
)

// fillRecordArgs fills vals with the values r's insert binds, in driver
// form, and returns how many: Persist builds them on the caller's
// goroutine, so the writer only binds them. A record with a caller's ID
// gets all 17 of insertRecordSQL, and vals has room for insertExtRecord's
// ?18; a fresh one (see insertFreshSQL) gets 12.
func fillRecordArgs(vals *[recordArgCount + 1]driver.NamedValue, r *ports.OutboxRecord, now time.Time) int {
	env := envelopeColsOf(r.Envelope)
	var headers any
	if env.headers.Valid {
		headers = env.headers.String
	}
	created := any(encodeTime(now))
	head := [freshArgCount - 1]any{
		newSalt(), r.Partition, r.RouteID, r.BindingID, r.Address,
		env.id, env.subject, headers, env.created, env.expires, env.payload,
	}
	for i, v := range head {
		vals[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	if r.ID == "" && r.ReplayCount == 0 && r.ClaimCount == 0 && r.LastError == "" &&
		r.FirstAttemptAt.IsZero() && r.NextAttemptAt.Equal(now) {
		vals[freshArgCount-1] = driver.NamedValue{Ordinal: freshArgCount, Value: created}
		return freshArgCount
	}
	next := created
	if !r.NextAttemptAt.Equal(now) {
		next = encodeTime(r.NextAttemptAt)
	}
	for i, v := range [recordArgCount - len(head)]any{
		int64(r.ReplayCount), r.LastError, created, encodeTime(r.FirstAttemptAt), next, int64(r.ClaimCount),
	} {
		vals[len(head)+i] = driver.NamedValue{Ordinal: len(head) + i + 1, Value: v}
	}
	return recordArgCount
}

// insertRecord stores one row: a store-made ID when callerID is empty,
// whose sequence number it returns, else callerID, which must not name a
// stored record.
func (tx *writeTx) insertRecord(callerID string, row []driver.NamedValue) (int64, error) {
	if callerID == "" {
		st := tx.stmts.insertRecord
		if len(row) == freshArgCount {
			st = tx.stmts.insertFresh
		}
		res, err := st.run(row)
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
