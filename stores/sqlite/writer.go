package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// writeFunc is one write call's work inside the writer's transaction.
//
// It returns a *fault.BridgeError for an outcome that concerns this call
// alone (stale token, unknown record, duplicate ID); it must then have
// changed nothing, or the op must run in a savepoint. Any other error is a
// database failure that fails the whole batch.
type writeFunc func(tx *writeTx) error

// writeOp is a write call queued to the writer.
type writeOp struct {
	ctx       context.Context
	fn        writeFunc
	savepoint bool
	done      chan error // buffered: the writer never blocks on it
}

// writeTx is what a writeFunc works with: the writer's connection, inside
// an open transaction, and its prepared statements.
type writeTx struct {
	conn   *sql.Conn
	stmts  *statements
	fenced *fenceCounter
}

// Stats counts the writer's work since Open.
type Stats struct {
	// Commits is the number of committed transactions.
	Commits uint64
	// Ops is the number of write calls those transactions carried.
	Ops uint64
	// FailedBatches is the number of transactions rolled back because of a
	// database failure.
	FailedBatches uint64
	// BatchTime is the time committed transactions spent from their begin
	// until their commit started: applying ops and waiting for more.
	BatchTime time.Duration
	// CommitTime is the time committed transactions spent in COMMIT:
	// writing the WAL, its fsync at synchronous=FULL, and the checkpoints
	// SQLite runs when the WAL has grown.
	CommitTime time.Duration
	// FencedWrites is the number of claims, completes and replays refused
	// because their fencing token was stale.
	FencedWrites uint64
}

// writer owns the write connection. One goroutine runs loop; write calls
// queue ops on a buffered channel, so a caller does not have to wait for
// the loop to be ready to take its op, and the loop picks up whatever is
// waiting without a goroutine switch per op. The loop answers every op it
// takes; an op still queued when the loop exits was never applied, and its
// caller, seeing exited, answers itself.
type writer struct {
	conn     *sql.Conn
	stmts    *statements
	log      *slog.Logger
	maxBatch int
	linger   time.Duration
	queue    chan *writeOp
	// inflight counts callers inside do, waiting to hand over an op or
	// for its answer.
	inflight atomic.Int64
	quit     chan struct{}
	exited   chan struct{}
	// tx is what every op of the loop's transactions is given; only the
	// loop goroutine touches it.
	tx writeTx
	// ops recycles writeOps whose answer was read, so a write call costs
	// no allocation for its op and answer channel.
	ops sync.Pool

	metrics writerMetrics

	commits, applied, failed atomic.Uint64
	// Nanoseconds, see Stats.
	batchNanos, commitNanos atomic.Int64
}

func newWriter(conn *sql.Conn, stmts *statements, log *slog.Logger, maxBatch int, linger time.Duration, m writerMetrics) *writer {
	return &writer{
		conn: conn, stmts: stmts, log: log, maxBatch: maxBatch, linger: linger, metrics: m,
		queue:  make(chan *writeOp, maxBatch),
		quit:   make(chan struct{}),
		exited: make(chan struct{}),
		tx:     writeTx{conn: conn, stmts: stmts, fenced: &fenceCounter{metric: m.fenced}},
		ops:    sync.Pool{New: func() any { return &writeOp{done: make(chan error, 1)} }},
	}
}

// do runs fn in the writer and waits until its transaction committed.
//
// When ctx ends first, do returns ctx.Err() at once. An op the writer has
// not started is then skipped; an op already in a transaction is applied
// or not as a whole, and the caller cannot tell which: a Persist that
// returned a context error may have stored its records (at-least-once).
func (w *writer) do(ctx context.Context, savepoint bool, fn writeFunc) error {
	w.inflight.Add(1)
	defer w.inflight.Add(-1)
	op := w.ops.Get().(*writeOp)
	op.ctx, op.fn, op.savepoint = ctx, fn, savepoint
	select {
	case w.queue <- op:
	case <-ctx.Done():
		w.recycle(op)
		return ctx.Err()
	case <-w.quit:
		w.recycle(op)
		return errClosed()
	}
	// An op goes back to the pool only once its answer was read: the
	// loop may still answer an op whose caller gave up.
	select {
	case err := <-op.done:
		w.recycle(op)
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-w.exited:
		// The loop sends its answer before it exits, so an op it took
		// has one by now; an op it never took was not applied.
		select {
		case err := <-op.done:
			w.recycle(op)
			return err
		default:
			return errClosed()
		}
	}
}

// recycle returns an op with an empty answer channel to the pool, without
// the references its call held.
func (w *writer) recycle(op *writeOp) {
	op.ctx, op.fn = nil, nil
	w.ops.Put(op)
}

// loop runs one transaction per round: it begins when an op arrives,
// applies ops as they come, and commits once no more are waiting and
// either as many ops as callers were in flight at the start have been
// applied (their callers are likely to send again right after the last
// commit) or the linger time has passed. Only then are the ops answered.
// It returns when quit is closed, after answering every op it took.
func (w *writer) loop() {
	defer close(w.exited)
	var b batch
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	for {
		var first *writeOp
		select {
		case first = <-w.queue:
		case <-w.quit:
			return
		}
		target := min(int(w.inflight.Load()), w.maxBatch)
		if err := b.begin(w); err != nil {
			w.fail([]*writeOp{first}, err)
			continue
		}
		b.add(w, first)
		lingering := false
	collect:
		for !b.broken() && len(b.ops) < w.maxBatch {
			select {
			case op := <-w.queue:
				b.add(w, op)
				continue
			default:
			}
			if len(b.ops) >= target || w.linger <= 0 {
				break
			}
			if !lingering {
				linger.Reset(w.linger)
				lingering = true
			}
			select {
			case op := <-w.queue:
				b.add(w, op)
			case <-linger.C:
				lingering = false
				break collect
			}
		}
		if lingering {
			linger.Stop() // since Go 1.23 no stale tick survives Stop
		}
		b.finish(w)
	}
}

// batch is the transaction of one round and the ops in it.
type batch struct {
	ops     []*writeOp
	results []error
	fatal   error
	begun   time.Time
}

func (b *batch) begin(w *writer) error {
	b.ops, b.results, b.fatal = b.ops[:0], b.results[:0], nil
	b.begun = time.Now()
	if _, err := w.stmts.begin.run(nil); err != nil {
		return opError("begin transaction", err)
	}
	return nil
}

func (b *batch) broken() bool { return b.fatal != nil }

// add applies op unless its caller already gave up or the transaction
// failed. A caller that gave up before its op ran is answered at once.
func (b *batch) add(w *writer, op *writeOp) {
	if err := op.ctx.Err(); err != nil {
		op.done <- err
		return
	}
	b.ops = append(b.ops, op)
	var err error
	if b.fatal == nil {
		err = w.apply(&w.tx, op)
		if err != nil && !isOwn(err) {
			b.fatal = opError("write", err)
		}
	}
	b.results = append(b.results, err)
}

// finish commits and answers every op; after a database failure it rolls
// back and gives every op that failure.
func (b *batch) finish(w *writer) {
	start := time.Now()
	if b.fatal == nil {
		if _, err := w.stmts.commit.run(nil); err != nil {
			b.fatal = opError("commit", err)
		}
	}
	if b.fatal != nil {
		w.rollback()
		w.fail(b.ops, b.fatal)
	} else {
		took := time.Since(start)
		w.batchNanos.Add(int64(start.Sub(b.begun)))
		w.commitNanos.Add(int64(took))
		w.commits.Add(1)
		w.applied.Add(uint64(len(b.ops)))
		w.metrics.commits.Add(1)
		w.metrics.writes.Observe(float64(len(b.ops)))
		w.metrics.commit.Observe(took.Seconds())
		for i, op := range b.ops {
			op.done <- b.results[i]
		}
	}
	clear(b.ops)
	clear(b.results)
}

// apply runs one op, inside a savepoint when it asked for one. A
// *fault.BridgeError from the op rolls the savepoint back; a database
// error is returned as is and fails the batch.
func (w *writer) apply(tx *writeTx, op *writeOp) error {
	bg := context.Background()
	if !op.savepoint {
		return op.fn(tx)
	}
	if _, err := w.stmts.savepoint.ExecContext(bg); err != nil {
		return err
	}
	err := op.fn(tx)
	if isOwn(err) {
		if _, rbErr := w.stmts.rollbackTo.ExecContext(bg); rbErr != nil {
			return rbErr
		}
	} else if err != nil {
		return err
	}
	if _, relErr := w.stmts.release.ExecContext(bg); relErr != nil {
		return relErr
	}
	return err
}

// isOwn reports whether err, returned by an op, concerns that op alone.
// A nil error returns at once: fault.As would allocate its target.
func isOwn(err error) bool {
	if err == nil {
		return false
	}
	_, own := fault.As(err)
	return own
}

func (w *writer) rollback() {
	// ROLLBACK fails harmlessly when SQLite already rolled back on its
	// own (after an I/O error or a full disk).
	_, _ = w.conn.ExecContext(context.Background(), "ROLLBACK")
}

func (w *writer) fail(ops []*writeOp, err error) {
	w.failed.Add(1)
	w.metrics.failed.Add(1)
	w.log.Warn("sqlite store write batch failed", "ops", len(ops), "err", err)
	for _, op := range ops {
		op.done <- err
	}
}

func (w *writer) stats() Stats {
	return Stats{
		Commits: w.commits.Load(), Ops: w.applied.Load(), FailedBatches: w.failed.Load(),
		BatchTime:    time.Duration(w.batchNanos.Load()),
		CommitTime:   time.Duration(w.commitNanos.Load()),
		FencedWrites: w.tx.fenced.n.Load(),
	}
}
