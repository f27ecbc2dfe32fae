package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"time"

	// The driver registers itself as "sqlite3" when imported.
	_ "github.com/mattn/go-sqlite3"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// Store is an outbox, DLQ and lease store on one SQLite database file. It
// is safe for concurrent use. Build it with Open and release it with Close.
type Store struct {
	path          string
	clock         ports.Clock
	staleClaimAge time.Duration

	writeDB *sql.DB
	reads   *sql.DB
	w       *writer
	lock    *fileLock

	closeOnce   sync.Once
	releaseOnce sync.Once
	closeErr    error
}

// The store implements the three store ports and batch completion.
var (
	_ ports.OutboxStore          = (*Store)(nil)
	_ ports.OutboxBatchCompleter = (*Store)(nil)
	_ ports.DLQStore             = (*Store)(nil)
	_ ports.LeaseStore           = (*Store)(nil)
	_ ports.SubscriptionLedger   = (*Store)(nil)
)

// Open opens the store at path, creating the file when it does not exist.
// It takes an exclusive lock on the file (on path + ".lock") that it holds
// until Close, switches the file to WAL mode, runs the configured integrity
// check, applies pending schema migrations and starts the writer goroutine,
// which Close stops.
//
// Open fails with INVALID_CONFIG, naming the path, when an option is
// invalid or the file is corrupt, not a database, another application's
// database, written by a newer schema version, not writable, or already
// open as another Store in this process; and with UNAVAILABLE when another
// process holds the file's lock (the message names its PID) or keeps the
// database locked past the busy timeout. It never replaces or truncates an
// existing file.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	abs, err := checkPath(path)
	if err != nil {
		return nil, err
	}
	lock, err := lockStore(abs, cfg.shared)
	if err != nil {
		return nil, err
	}
	if !lockSupported {
		cfg.logger.Warn("sqlite store: this platform has no file lock; make sure only one process opens the file", "path", abs)
	}
	if err := secureFile(abs, cfg.logger); err != nil {
		lock.release()
		return nil, err
	}
	writeDB, conn, err := openWriter(ctx, abs, &cfg)
	if err != nil {
		lock.release()
		return nil, err
	}
	stmts, err := prepareStatements(ctx, conn)
	if err != nil {
		_ = conn.Close()
		_ = writeDB.Close()
		lock.release()
		return nil, openError(abs, "cannot prepare statements", err)
	}
	reads, err := openReaders(ctx, abs, &cfg)
	if err != nil {
		stmts.close()
		_ = conn.Close()
		_ = writeDB.Close()
		lock.release()
		return nil, err
	}
	label := cfg.storeLabel
	if label == "" {
		label = filepath.Base(abs)
	}
	s := &Store{
		path:          abs,
		clock:         cfg.clock,
		staleClaimAge: cfg.staleClaimAge,
		writeDB:       writeDB,
		reads:         reads,
		lock:          lock,
		w:             newWriter(conn, stmts, cfg.logger, cfg.maxBatchOps, cfg.linger, newWriterMetrics(cfg.meter, label)),
	}
	go s.w.loop()
	cfg.logger.Info("sqlite store opened", "path", abs, "synchronous", cfg.synchronous)
	return s, nil
}

// Path returns the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Stats returns the writer's counters; Ops divided by Commits is the mean
// number of write calls that shared one transaction, and BatchTime and
// CommitTime divided by Commits tell where a transaction's time went.
func (s *Store) Stats() Stats { return s.w.stats() }

// Close stops accepting writes, lets the writer finish the batch it is
// committing, closes the database and gives up the file's lock. Calls made after Close fail with
// UNAVAILABLE. When ctx ends before the writer stopped, Close returns
// ctx.Err() and a later Close finishes the job. Close is safe to call more
// than once.
func (s *Store) Close(ctx context.Context) error {
	s.closeOnce.Do(func() { close(s.w.quit) })
	select {
	case <-s.w.exited:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.release()
	return s.closeErr
}

// release closes the connections, then gives up the lock; only the first
// call after the writer exited does anything.
func (s *Store) release() {
	s.releaseOnce.Do(func() {
		s.w.stmts.close()
		s.closeErr = errors.Join(s.w.conn.Close(), s.writeDB.Close(), s.reads.Close())
		s.lock.release()
	})
}
