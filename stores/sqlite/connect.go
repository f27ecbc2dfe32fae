package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mattn/go-sqlite3"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// driverName is the name under which the go-sqlite3 package registers its
// driver when imported.
const driverName = "sqlite3"

// dsn builds the URI that opens path. The path is escaped so that '?', '#'
// and '%' in a file name stay part of it.
func dsn(path string, params url.Values) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file:" + r.Replace(path) + "?" + params.Encode()
}

// openError is a start-up failure: a permanent INVALID_CONFIG error that
// names the file and says what is wrong with it.
func openError(path, what string, err error) error {
	msg := fmt.Sprintf("sqlite store %s: %s", path, what)
	if code, ok := sqliteCode(err); ok {
		switch code {
		case sqlite3.ErrNotADB, sqlite3.ErrCorrupt:
			msg += " (the file is not a database or is corrupt; it was left untouched)"
		case sqlite3.ErrCantOpen, sqlite3.ErrReadonly, sqlite3.ErrPerm, sqlite3.ErrAuth:
			msg += " (check that the file and its directory exist and are writable: WAL mode creates -wal and -shm files beside it)"
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return fault.ErrUnavailable.WithMessage(msg + " (locked by another connection)").Wrap(err)
		}
	}
	if err == nil {
		return fault.ErrInvalidConfig.WithMessage(msg)
	}
	return fault.ErrInvalidConfig.WithMessage(msg).Wrap(err)
}

// checkPath rejects what cannot be a store file before SQLite sees it.
func checkPath(path string) (string, error) {
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return "", fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("sqlite store: path %q must name a file on disk", path))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", openError(path, "cannot resolve path", err)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return "", openError(abs, "is a directory", nil)
	}
	if fi, err := os.Stat(filepath.Dir(abs)); err != nil || !fi.IsDir() {
		return "", openError(abs, "directory does not exist", err)
	}
	return abs, nil
}

// openWriter opens the single write connection and prepares the file:
// WAL mode, the integrity check, migrations and the synchronous level.
func openWriter(ctx context.Context, path string, cfg *config) (*sql.DB, *sql.Conn, error) {
	params := url.Values{}
	params.Set("_busy_timeout", fmt.Sprint(cfg.busyTimeout.Milliseconds()))
	params.Set("_synchronous", cfg.synchronous)
	params.Set("_foreign_keys", "0")
	// database/sql hands a connection to one goroutine at a time, so
	// SQLite's per-connection mutex is pure overhead.
	params.Set("_mutex", "no")
	db, err := sql.Open(driverName, dsn(path, params))
	if err != nil {
		return nil, nil, openError(path, "cannot open", err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	conn, err := db.Conn(ctx)
	if err != nil {
		_ = db.Close()
		return nil, nil, openError(path, "cannot open", err)
	}
	if err := prepareFile(ctx, path, conn, cfg); err != nil {
		_ = conn.Close()
		_ = db.Close()
		return nil, nil, err
	}
	return db, conn, nil
}

func prepareFile(ctx context.Context, path string, conn *sql.Conn, cfg *config) error {
	// Reading the header first turns a file of garbage into a clear
	// "not a database" before anything tries to write to it.
	var appID int
	if err := conn.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return openError(path, "cannot read the database header", err)
	}
	if appID != 0 && appID != applicationID {
		return openError(path, fmt.Sprintf("not a gobridge store (application_id %#x)", appID), nil)
	}
	if err := runCheck(ctx, path, conn, cfg.check); err != nil {
		return err
	}
	if err := setPageSize(ctx, path, conn, cfg); err != nil {
		return err
	}
	var mode string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return openError(path, "cannot switch to WAL mode", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return openError(path, fmt.Sprintf("the file system refused WAL mode (journal mode is %q)", mode), nil)
	}
	from, err := migrate(ctx, conn, encodeTime(cfg.clock.Now()))
	if err != nil {
		return openError(path, "schema", err)
	}
	if from != schemaVersion() {
		cfg.logger.Info("sqlite store schema migrated", "path", path, "from", from, "to", schemaVersion())
	}
	var level int
	if err := conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&level); err != nil {
		return openError(path, "cannot read synchronous level", err)
	}
	if want := map[string]int{"OFF": 0, "NORMAL": 1, "FULL": 2}[cfg.synchronous]; level != want {
		return openError(path, fmt.Sprintf("synchronous is %d, want %s", level, cfg.synchronous), nil)
	}
	return nil
}

// setPageSize gives a new, still empty file the configured page size. It
// must run before the switch to WAL mode, which writes the first page; an
// existing file keeps its page size, which only a VACUUM outside WAL mode
// could change.
func setPageSize(ctx context.Context, path string, conn *sql.Conn, cfg *config) error {
	var pages int
	if err := conn.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return openError(path, "cannot read the page count", err)
	}
	if pages == 0 {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA page_size = %d", cfg.pageSize)); err != nil {
			return openError(path, "cannot set the page size", err)
		}
		return nil
	}
	var size int
	if err := conn.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
		return openError(path, "cannot read the page size", err)
	}
	if size != cfg.pageSize {
		cfg.logger.Info("sqlite store keeps the page size it was created with",
			"path", path, "page_size", size, "configured", cfg.pageSize)
	}
	return nil
}

// runCheck runs the configured integrity check and fails unless SQLite
// answers "ok".
func runCheck(ctx context.Context, path string, conn *sql.Conn, check StartupCheck) error {
	var pragma string
	switch check {
	case CheckOff:
		return nil
	case CheckFull:
		pragma = "PRAGMA integrity_check(20)"
	default:
		pragma = "PRAGMA quick_check(20)"
	}
	rows, err := conn.QueryContext(ctx, pragma)
	if err != nil {
		return openError(path, "integrity check failed", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return openError(path, "integrity check failed", err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return openError(path, "integrity check failed", err)
	}
	if len(problems) > 0 {
		return openError(path, "database is corrupt: "+strings.Join(problems, "; "), nil)
	}
	return nil
}

// openReaders opens the pool of query-only connections used by Depth, the
// DLQ reads and lease Read.
func openReaders(ctx context.Context, path string, cfg *config) (*sql.DB, error) {
	params := url.Values{}
	params.Set("_busy_timeout", fmt.Sprint(cfg.busyTimeout.Milliseconds()))
	params.Set("_query_only", "1")
	params.Set("_mutex", "no")
	db, err := sql.Open(driverName, dsn(path, params))
	if err != nil {
		return nil, openError(path, "cannot open read connections", err)
	}
	db.SetMaxOpenConns(cfg.readConns)
	db.SetMaxIdleConns(cfg.readConns)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, openError(path, "cannot open read connections", err)
	}
	return db, nil
}
