package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// Round sizes of BenchmarkGroupCommitVsNaive: each side runs for roughly
// 50-150 ms per round on a disk whose fsync takes 0.3-0.7 ms.
const (
	groupRoundOps = 3200
	naiveRoundOps = 160
)

// BenchmarkGroupCommitVsNaive measures the group-commit ratio with both
// sides on the same disk at the same moment: it alternates rounds of 64
// producers persisting one-record batches through the store
// (synchronous=FULL) with rounds of the naive loop (one transaction and
// one fsync per message, through database/sql), and reports both rates
// over all rounds and their ratio. The disk of a shared VM changes speed
// from minute to minute, so two benchmarks run one after the other do not
// give a meaningful ratio. b.N is the number of group-commit messages.
func BenchmarkGroupCommitVsNaive(b *testing.B) {
	benchGroupVsNaive(b, 64, naiveWAL)
}

// BenchmarkGroupCommitVsDefaultSQLite is the same against a naive loop on
// SQLite's default journal: a rollback journal at synchronous=FULL, as a
// program that opens the file and inserts gets without tuning anything.
// Each of its commits syncs the journal and the database file. It is the
// looser baseline; BenchmarkGroupCommitVsNaive is the one the store's
// target is held to.
func BenchmarkGroupCommitVsDefaultSQLite(b *testing.B) {
	benchGroupVsNaive(b, 64, naiveRollbackJournal)
}

func benchGroupVsNaive(b *testing.B, producers int, naiveJournal string, opts ...Option) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "group.db"), append(opts, WithSynchronous("FULL"))...)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(ctx)
	naive := openNaive(b, naiveJournal)
	defer naive.close()
	group := newGroupProducers(s, producers)
	defer group.stop()

	var groupTime, naiveTime time.Duration
	naiveOps := 0
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(groupRoundOps, b.N-done)
		start := time.Now()
		if err := group.run(n); err != nil {
			b.Fatal(err)
		}
		groupTime += time.Since(start)
		done += n

		start = time.Now()
		if err := naive.run(naiveRoundOps); err != nil {
			b.Fatal(err)
		}
		naiveTime += time.Since(start)
		naiveOps += naiveRoundOps
	}
	b.StopTimer()
	groupRate := float64(b.N) / groupTime.Seconds()
	naiveRate := float64(naiveOps) / naiveTime.Seconds()
	b.ReportMetric(groupRate, "group-msgs/s")
	b.ReportMetric(naiveRate, "naive-msgs/s")
	b.ReportMetric(groupRate/naiveRate, "ratio")
	reportWriter(b, s.Stats())
}

// groupProducers are goroutines that persist one-record batches into a
// store, as many as run asks for, and then wait for the next round.
type groupProducers struct {
	s     *Store
	recs  []ports.OutboxRecord
	start []chan int // per producer: how many to persist this round
	done  chan error
	wg    sync.WaitGroup
}

func newGroupProducers(s *Store, n int) *groupProducers {
	g := &groupProducers{s: s, done: make(chan error, n)}
	for i := range n {
		g.recs = append(g.recs, benchRecord(i))
		g.start = append(g.start, make(chan int))
	}
	for i := range n {
		g.wg.Go(func() { g.produce(i) })
	}
	return g
}

func (g *groupProducers) produce(i int) {
	for n := range g.start[i] {
		var err error
		for range n {
			// Persist fills in the ID of the one-element copy, so
			// g.recs[i] stays without one.
			if err = g.s.Persist(context.Background(), []ports.OutboxRecord{g.recs[i]}); err != nil {
				break
			}
		}
		g.done <- err
	}
}

// run persists total messages spread over all producers and returns when
// every one was acknowledged.
func (g *groupProducers) run(total int) error {
	n := len(g.start)
	for i, c := range g.start {
		c <- total/n + boolInt(i < total%n)
	}
	var first error
	for range n {
		if err := <-g.done; err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (g *groupProducers) stop() {
	for _, c := range g.start {
		close(c)
	}
	g.wg.Wait()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// naiveInserter is the baseline: the store's schema and its insert of a
// fresh record, the same durability (synchronous=FULL, in WAL mode or on a
// rollback journal), one transaction per message through database/sql, one
// message after the other.
type naiveInserter struct {
	db   *sql.DB
	args []any
}

// Journal modes of the naive loop.
const (
	naiveWAL             = "WAL"
	naiveRollbackJournal = "DELETE"
)

func openNaive(b *testing.B, journal string) *naiveInserter {
	b.Helper()
	path := filepath.Join(b.TempDir(), "naive.db")
	// Open once through the store so that the schema is the same, but
	// with SQLite's default page size: one small transaction per message
	// writes fewer bytes with 4 KiB pages, so this is the faster baseline.
	s, err := Open(context.Background(), path, WithPageSize(4096))
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open(driverName, "file:"+path+"?_journal_mode="+journal+"&_synchronous=FULL&_busy_timeout=5000&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	rec := benchRecord(0)
	env := envelopeColsOf(rec.Envelope)
	args := []any{int64(0), rec.Partition, rec.RouteID, rec.BindingID, rec.Address}
	args = append(args, env.args()...)
	args = append(args, int64(0)) // ?12, the time, set per message
	return &naiveInserter{db: db, args: args}
}

func (n *naiveInserter) run(count int) error {
	for range count {
		tx, err := n.db.Begin()
		if err != nil {
			return err
		}
		n.args[0], n.args[freshArgCount-1] = newSalt(), encodeTime(time.Now())
		if _, err := tx.Exec(insertFreshSQL, n.args...); err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

func (n *naiveInserter) close() { _ = n.db.Close() }
