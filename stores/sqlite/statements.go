package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// outboxColumns are the columns a record is read from, in scanRecord's
// order.
const outboxColumns = `seq, salt, ext_id, partition, route_id, binding_id, address,
	env_id, subject, headers, env_created_at, env_expires_at, payload,
	replay_count, claim_count, last_error, created_at, first_attempt_at, next_attempt_at`

// dlqColumns are the columns an entry is read from, in scanEntry's order.
const dlqColumns = `seq, id, route_id, binding_id, address,
	error_class, error_code, error_message, category, attempts,
	first_failure_at, last_failure_at,
	has_envelope, env_id, subject, headers, env_created_at, env_expires_at, payload`

// statements are prepared once on the writer's connection.
type statements struct {
	savepoint, rollbackTo, release *sql.Stmt

	// What runs once per op or once per transaction runs without
	// database/sql, see rawStmt: the transaction's begin and commit and
	// the three inserts of an outbox record.
	begin, commit                              *rawStmt
	insertRecord, insertFresh, insertExtRecord *rawStmt

	storeMadeExists                            *sql.Stmt
	claim, resolveRecord, deleteRecord, replay *sql.Stmt
	resolveBatch, deleteBatch                  *sql.Stmt
	fenceGet, fenceSet                         *sql.Stmt
	insertEntry, deleteEntry                   *sql.Stmt
	leaseGet, leasePut                         *sql.Stmt

	all []*sql.Stmt
}

// The inserts of an outbox record: ?1 salt, ?2 partition, then the
// columns in order up to ?16, the next attempt, which is also when the
// record becomes available, and ?17 the claim count. insertRecordSQL
// leaves ext_id NULL (a store-made ID); insertExtRecordSQL stores the
// caller's ID, ?18, there.
//
// insertFreshSQL stores a record Persist made due at once and that has no
// history: no replays, no claims, no error, no attempt yet. Its constant
// columns are literals and its three equal times one value, ?12, so that
// the writer binds 12 values instead of 17 for the records nearly every
// Persist carries. The first attempt literal is encodeTime's zero time,
// math.MinInt64, written as an expression because SQLite reads the
// literal -9223372036854775808 as a float.
const (
	insertRecordSQL    = insertRecordHead + "?1, NULL, " + insertRecordTail
	insertExtRecordSQL = insertRecordHead + "?1, ?18, " + insertRecordTail
	insertFreshSQL     = insertRecordHead + "?1, NULL, " +
		"?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 0, '', ?12, -9223372036854775807 - 1, ?12, ?12, 0)"
	insertRecordHead = `INSERT INTO outbox (salt, ext_id, partition, route_id, binding_id, address,
		env_id, subject, headers, env_created_at, env_expires_at, payload,
		replay_count, last_error, created_at, first_attempt_at, next_attempt_at, available_at, claim_count)
		VALUES (`
	insertRecordTail = "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?16, ?17)"
)

func prepareStatements(ctx context.Context, conn *sql.Conn) (*statements, error) {
	s := &statements{}
	defs := []struct {
		dst   **sql.Stmt
		query string
	}{
		{&s.savepoint, "SAVEPOINT op"},
		{&s.rollbackTo, "ROLLBACK TO op"},
		{&s.release, "RELEASE op"},
		// ?1 seq, ?2 salt of a store-made ID.
		{&s.storeMadeExists, "SELECT 1 FROM outbox WHERE seq = ?1 AND salt = ?2 AND ext_id IS NULL"},
		// ?1 owner, ?2 version, ?3 now, ?4 stale deadline, ?5 partition,
		// ?6 limit, ?7 the stored zero time.
		{&s.claim, `UPDATE outbox SET claim_owner = ?1, claim_version = ?2, claimed_at = ?3,
			available_at = ?4, claim_count = claim_count + 1,
			first_attempt_at = CASE WHEN first_attempt_at = ?7 THEN ?3 ELSE first_attempt_at END
			WHERE seq IN (SELECT seq FROM outbox WHERE partition = ?5 AND available_at <= ?3
				ORDER BY seq LIMIT ?6)
			RETURNING ` + outboxColumns},
		// recordKey's three values: seq and salt of a store-made ID (both
		// NULL otherwise), and the ID as a caller's ID.
		{&s.resolveRecord, `SELECT seq, partition FROM outbox
			WHERE (seq = ?1 AND salt = ?2 AND ext_id IS NULL) OR ext_id = ?3`},
		{&s.deleteRecord, "DELETE FROM outbox WHERE seq = ?"},
		// ?1 a JSON array of [seq, salt] pairs of store-made IDs, ?2 a
		// JSON array of IDs to look up as caller IDs.
		{&s.resolveBatch, `SELECT o.seq, o.partition FROM json_each(?1) AS k
				JOIN outbox AS o ON o.seq = k.value->>0 AND o.salt = k.value->>1 AND o.ext_id IS NULL
			UNION
			SELECT o.seq, o.partition FROM json_each(?2) AS k JOIN outbox AS o ON o.ext_id = k.value`},
		// ?1 a JSON array of sequence numbers.
		{&s.deleteBatch, "DELETE FROM outbox WHERE seq IN (SELECT value FROM json_each(?1))"},
		// ?1 seq, ?2 last error, ?3 next attempt.
		{&s.replay, `UPDATE outbox SET replay_count = replay_count + 1, last_error = ?2,
			next_attempt_at = ?3, available_at = ?3,
			claim_owner = NULL, claim_version = NULL, claimed_at = NULL
			WHERE seq = ?1`},
		{&s.fenceGet, "SELECT version FROM fence WHERE partition = ?"},
		{&s.fenceSet, `INSERT INTO fence (partition, version) VALUES (?1, ?2)
			ON CONFLICT (partition) DO UPDATE SET version = excluded.version`},
		{&s.insertEntry, `INSERT INTO dlq (id, route_id, binding_id, address,
			error_class, error_code, error_message, category, attempts,
			first_failure_at, last_failure_at,
			has_envelope, env_id, subject, headers, env_created_at, env_expires_at, payload)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&s.deleteEntry, "DELETE FROM dlq WHERE id = ?"},
		{&s.leaseGet, "SELECT owner, version, expires_at, released FROM lease WHERE key = ?"},
		{&s.leasePut, `INSERT INTO lease (key, owner, version, expires_at, released)
			VALUES (?1, ?2, ?3, ?4, ?5)
			ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, version = excluded.version,
				expires_at = excluded.expires_at, released = excluded.released`},
	}
	for _, d := range defs {
		st, err := conn.PrepareContext(ctx, d.query)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("prepare %q: %w", d.query, err)
		}
		*d.dst = st
		s.all = append(s.all, st)
	}
	for _, d := range []struct {
		dst   **rawStmt
		query string
	}{
		{&s.begin, "BEGIN IMMEDIATE"},
		{&s.commit, "COMMIT"},
		{&s.insertRecord, insertRecordSQL},
		{&s.insertFresh, insertFreshSQL},
		{&s.insertExtRecord, insertExtRecordSQL},
	} {
		st, err := prepareRaw(ctx, conn, d.query)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("prepare %q: %w", d.query, err)
		}
		*d.dst = st
	}
	return s, nil
}

func (s *statements) close() {
	for _, st := range s.all {
		_ = st.Close()
	}
	for _, st := range []*rawStmt{s.begin, s.commit, s.insertRecord, s.insertFresh, s.insertExtRecord} {
		_ = st.close()
	}
}
