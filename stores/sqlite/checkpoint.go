package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/url"
	"sync/atomic"
	"time"
)

// Checkpoint defaults.
const (
	// DefaultCheckpointInterval is how often the background checkpointer
	// copies committed WAL pages into the database file.
	DefaultCheckpointInterval = 100 * time.Millisecond
	// DefaultWALLimitPages is the WAL size, in pages, beyond which the
	// checkpointer briefly holds writers back to reset the WAL (about 64
	// MiB with 4 KiB pages).
	DefaultWALLimitPages = 16384
)

// checkpointer moves WAL checkpoints off the writer. SQLite's automatic
// checkpoint runs inside the commit that crosses its threshold, so the
// single writer, and every producer waiting on it, would pay for copying
// pages back into the database file. With automatic checkpoints off, this
// goroutine runs PASSIVE checkpoints on its own connection, which never
// block the writer. Under a steady stream of commits a passive checkpoint
// never catches up with the end of the WAL, so the WAL cannot restart and
// would grow; past walLimit pages the checkpointer runs one TRUNCATE
// checkpoint, which waits for the writer's current transaction, copies
// the rest and empties the WAL file, so the next commit starts it afresh.
type checkpointer struct {
	db       *sql.DB
	log      *slog.Logger
	interval time.Duration
	walLimit int
	commits  *atomic.Uint64 // the writer's commit counter
	quit     chan struct{}
	exited   chan struct{}
	runs     atomic.Uint64
	restarts atomic.Uint64
}

// openCheckpointer opens the checkpointer's own connection.
func openCheckpointer(ctx context.Context, path string, cfg *config, commits *atomic.Uint64) (*checkpointer, error) {
	params := url.Values{}
	params.Set("_busy_timeout", fmt.Sprint(cfg.busyTimeout.Milliseconds()))
	params.Set("_synchronous", cfg.synchronous)
	params.Set("_mutex", "no")
	db, err := sql.Open(driverName, dsn(path, params))
	if err != nil {
		return nil, openError(path, "cannot open the checkpoint connection", err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, openError(path, "cannot open the checkpoint connection", err)
	}
	return &checkpointer{
		db: db, log: cfg.logger, interval: cfg.checkpointInterval, walLimit: cfg.walLimitPages,
		commits: commits, quit: make(chan struct{}), exited: make(chan struct{}),
	}, nil
}

// loop checkpoints every interval when something was committed since the
// last run, until quit closes.
func (c *checkpointer) loop() {
	defer close(c.exited)
	t := time.NewTicker(c.interval)
	defer t.Stop()
	var seen uint64
	for {
		select {
		case <-c.quit:
			return
		case <-t.C:
		}
		if n := c.commits.Load(); n != seen {
			seen = n
			c.checkpoint()
		}
	}
}

// checkpoint runs one PASSIVE checkpoint and, when the WAL has grown past
// the limit, one RESTART checkpoint.
func (c *checkpointer) checkpoint() {
	c.runs.Add(1)
	walPages, err := c.run("PASSIVE")
	if err != nil {
		c.log.Warn("sqlite checkpoint failed; retrying on the next tick", "err", err)
		return
	}
	if walPages > c.walLimit {
		c.restarts.Add(1)
		if _, err := c.run("TRUNCATE"); err != nil {
			c.log.Warn("sqlite WAL restart failed; retrying on the next tick", "wal_pages", walPages, "err", err)
		}
	}
}

// run executes one checkpoint in mode and returns the WAL size in pages.
// A checkpoint SQLite could not finish (busy) is not an error: the next
// one carries on.
func (c *checkpointer) run(mode string) (int, error) {
	var busy, walPages, copied int
	err := c.db.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &walPages, &copied)
	return walPages, err
}

// close stops the loop and closes the connection.
func (c *checkpointer) close() error {
	close(c.quit)
	<-c.exited
	return c.db.Close()
}
