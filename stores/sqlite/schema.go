package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// applicationID marks a database file as a gobridge store ("gbst"). Open
// refuses a file that carries another application's ID.
const applicationID = 0x67627374

// migration is one step of the schema. Steps run in order, each at most
// once; PRAGMA user_version holds the number of the last applied step and
// the schema_migrations table records when each ran.
type migration struct {
	version int
	name    string
	stmts   []string
}

// migrations returns the schema history. Append new steps; never edit or
// reorder released ones.
func migrations() []migration {
	return []migration{{
		version: 1,
		name:    "outbox, dlq, lease and fence tables",
		stmts: []string{
			`CREATE TABLE schema_migrations (
				version    INTEGER PRIMARY KEY,
				name       TEXT NOT NULL,
				applied_at INTEGER NOT NULL
			)`,
			// seq is the rowid: it gives the persist order. available_at
			// is when the record may be claimed next: its due time, or
			// the stale deadline of its current claim.
			`CREATE TABLE outbox (
				seq              INTEGER PRIMARY KEY,
				id               TEXT NOT NULL UNIQUE,
				partition        TEXT NOT NULL,
				route_id         TEXT NOT NULL,
				binding_id       TEXT NOT NULL,
				address          TEXT NOT NULL,
				env_id           TEXT NOT NULL,
				subject          TEXT NOT NULL,
				headers          TEXT,
				env_created_at   INTEGER NOT NULL,
				env_expires_at   INTEGER NOT NULL,
				payload          BLOB,
				replay_count     INTEGER NOT NULL DEFAULT 0,
				last_error       TEXT NOT NULL DEFAULT '',
				created_at       INTEGER NOT NULL,
				first_attempt_at INTEGER NOT NULL,
				next_attempt_at  INTEGER NOT NULL,
				available_at     INTEGER NOT NULL,
				claim_owner      TEXT,
				claim_version    INTEGER,
				claimed_at       INTEGER
			)`,
			// The claim scan walks a partition in persist order and reads
			// available_at from the index alone.
			`CREATE INDEX outbox_claim ON outbox (partition, seq, available_at)`,
			// AUTOINCREMENT: a sequence number is never reused, so a
			// listing cursor never lands before a newer entry.
			`CREATE TABLE dlq (
				seq              INTEGER PRIMARY KEY AUTOINCREMENT,
				id               TEXT NOT NULL UNIQUE,
				route_id         TEXT NOT NULL,
				binding_id       TEXT NOT NULL,
				address          TEXT NOT NULL,
				error_class      TEXT NOT NULL,
				error_code       TEXT NOT NULL,
				error_message    TEXT NOT NULL,
				category         TEXT NOT NULL,
				attempts         INTEGER NOT NULL,
				first_failure_at INTEGER NOT NULL,
				last_failure_at  INTEGER NOT NULL,
				has_envelope     INTEGER NOT NULL,
				env_id           TEXT NOT NULL,
				subject          TEXT NOT NULL,
				headers          TEXT,
				env_created_at   INTEGER NOT NULL,
				env_expires_at   INTEGER NOT NULL,
				payload          BLOB
			)`,
			`CREATE INDEX dlq_route ON dlq (route_id, seq)`,
			`CREATE INDEX dlq_category ON dlq (category, seq)`,
			`CREATE INDEX dlq_last_failure ON dlq (last_failure_at)`,
			// A released lease keeps its owner and version; released
			// makes its token no longer current.
			`CREATE TABLE lease (
				key        TEXT PRIMARY KEY,
				owner      TEXT NOT NULL,
				version    INTEGER NOT NULL,
				expires_at INTEGER NOT NULL,
				released   INTEGER NOT NULL
			) WITHOUT ROWID`,
			// fence holds the highest lease token version seen per outbox
			// partition.
			`CREATE TABLE fence (
				partition TEXT PRIMARY KEY,
				version   INTEGER NOT NULL
			) WITHOUT ROWID`,
		},
	}, {
		version: 2,
		name:    "outbox rows keyed by sequence number; caller IDs in ext_id",
		stmts: []string{
			// Rows from version 1 keep their IDs as caller IDs, so that
			// a claim held across the upgrade still completes.
			`CREATE TABLE outbox_v2 (
				seq              INTEGER PRIMARY KEY,
				salt             INTEGER NOT NULL,
				ext_id           TEXT,
				partition        TEXT NOT NULL,
				route_id         TEXT NOT NULL,
				binding_id       TEXT NOT NULL,
				address          TEXT NOT NULL,
				env_id           TEXT NOT NULL,
				subject          TEXT NOT NULL,
				headers          TEXT,
				env_created_at   INTEGER NOT NULL,
				env_expires_at   INTEGER NOT NULL,
				payload          BLOB,
				replay_count     INTEGER NOT NULL DEFAULT 0,
				last_error       TEXT NOT NULL DEFAULT '',
				created_at       INTEGER NOT NULL,
				first_attempt_at INTEGER NOT NULL,
				next_attempt_at  INTEGER NOT NULL,
				available_at     INTEGER NOT NULL,
				claim_owner      TEXT,
				claim_version    INTEGER,
				claimed_at       INTEGER
			)`,
			`INSERT INTO outbox_v2 SELECT seq, 0, id, partition, route_id, binding_id, address,
				env_id, subject, headers, env_created_at, env_expires_at, payload,
				replay_count, last_error, created_at, first_attempt_at, next_attempt_at,
				available_at, claim_owner, claim_version, claimed_at FROM outbox`,
			`DROP TABLE outbox`,
			`ALTER TABLE outbox_v2 RENAME TO outbox`,
			// Rows with store-made IDs (ext_id NULL) stay out of it.
			`CREATE UNIQUE INDEX outbox_ext_id ON outbox (ext_id) WHERE ext_id IS NOT NULL`,
			`CREATE INDEX outbox_claim ON outbox (partition, seq, available_at)`,
		},
	}, {
		version: 3,
		name:    "outbox claim_count: claims counted durably for the poison gate",
		stmts: []string{
			`ALTER TABLE outbox ADD COLUMN claim_count INTEGER NOT NULL DEFAULT 0`,
			// Older builds did not count claims. Every replay followed a
			// claim, and a record still claimed has one more: the least
			// number of claims the row has seen.
			`UPDATE outbox SET claim_count = replay_count + (claim_owner IS NOT NULL)`,
		},
	}, {
		version: 4,
		name:    "stream logs: the SSE sender's per-channel replay logs",
		stmts: []string{
			// last_seq is the number of the newest event ever appended,
			// kept when its events are trimmed so that numbers are never
			// given twice; bytes is the data size of the kept events.
			`CREATE TABLE stream_channel (
				channel  TEXT PRIMARY KEY,
				last_seq INTEGER NOT NULL,
				bytes    INTEGER NOT NULL
			) WITHOUT ROWID`,
			// A rowid table: event data may be large.
			`CREATE TABLE stream_event (
				channel     TEXT NOT NULL,
				seq         INTEGER NOT NULL,
				appended_at INTEGER NOT NULL,
				data        BLOB NOT NULL,
				PRIMARY KEY (channel, seq)
			)`,
		},
	}, {
		version: 5,
		name:    "managed subscriptions: the filters a durable broker session was given",
		stmts: []string{
			// A row per session that was ever saved, so that an empty set
			// is told apart from a session never baselined.
			`CREATE TABLE managed_session (
				session  TEXT PRIMARY KEY,
				saved_at INTEGER NOT NULL
			) WITHOUT ROWID`,
			`CREATE TABLE managed_subscription (
				session TEXT NOT NULL,
				filter  TEXT NOT NULL,
				qos     INTEGER NOT NULL,
				PRIMARY KEY (session, filter)
			) WITHOUT ROWID`,
		},
	}}
}

// schemaVersion is the version this build writes.
func schemaVersion() int {
	ms := migrations()
	return ms[len(ms)-1].version
}

// migrate brings the database on conn to schemaVersion in one IMMEDIATE
// transaction. It refuses a file written by a newer build and a file that
// holds another application's tables. nowNanos stamps the applied steps.
func migrate(ctx context.Context, conn *sql.Conn, nowNanos int64) (from int, err error) {
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return 0, fmt.Errorf("begin migration: %w", err)
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
		}
	}()
	var appID, objects int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&from); err != nil {
		return 0, fmt.Errorf("read user_version: %w", err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return 0, fmt.Errorf("read application_id: %w", err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&objects); err != nil {
		return 0, fmt.Errorf("read schema: %w", err)
	}
	switch {
	case appID != 0 && appID != applicationID:
		return 0, fmt.Errorf("not a gobridge store: application_id is %#x", appID)
	case appID == 0 && objects > 0:
		return 0, fmt.Errorf("not a gobridge store: the file holds %d other schema objects", objects)
	case from > schemaVersion():
		return 0, fmt.Errorf("schema version %d is newer than the %d this build supports; upgrade gobridge", from, schemaVersion())
	}
	if from == schemaVersion() {
		_, err := conn.ExecContext(ctx, "COMMIT")
		return from, err
	}
	for _, m := range migrations() {
		if m.version <= from {
			continue
		}
		for _, stmt := range m.stmts {
			if _, err := conn.ExecContext(ctx, stmt); err != nil {
				return 0, fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
			}
		}
		if _, err := conn.ExecContext(ctx,
			"INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
			m.version, m.name, nowNanos); err != nil {
			return 0, fmt.Errorf("record migration %d: %w", m.version, err)
		}
	}
	// PRAGMA arguments cannot be bound; both values are integers this
	// package controls.
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return 0, fmt.Errorf("set application_id: %w", err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion())); err != nil {
		return 0, fmt.Errorf("set user_version: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return 0, fmt.Errorf("commit migration: %w", err)
	}
	return from, nil
}
