package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// holdWriter occupies the writer with an op that waits for the returned
// release function, and returns once the writer runs it.
func holdWriter(t *testing.T, s *Store) (release func() error) {
	t.Helper()
	running, proceed := make(chan struct{}), make(chan struct{})
	result := make(chan error, 1)
	go func() {
		result <- s.w.do(context.Background(), false, func(*writeTx) error {
			close(running)
			<-proceed
			return nil
		})
	}()
	select {
	case <-running:
	case <-t.Context().Done():
		t.Fatal("the writer never ran the holding op")
	}
	var (
		once sync.Once
		err  error
	)
	release = func() error {
		once.Do(func() {
			close(proceed)
			err = <-result
		})
		return err
	}
	t.Cleanup(func() { _ = release() })
	return release
}

// call runs fn, which must queue one op, in a goroutine and waits until
// that op is in the writer's queue, so that calls made one after the other
// queue in that order and join the writer's next batch. The writer must be
// held (holdWriter), or the queue would drain under the wait.
func call(t *testing.T, s *Store, fn func() error) <-chan error {
	t.Helper()
	queued := len(s.w.queue)
	out := make(chan error, 1)
	go func() { out <- fn() }()
	for len(s.w.queue) <= queued {
		if t.Context().Err() != nil {
			t.Fatalf("the call's op never reached the queue (%d queued)", len(s.w.queue))
		}
		runtime.Gosched()
	}
	return out
}

// persistBehindHeldWriter holds the writer, queues callers one-record
// persists into partition p behind it, releases it and waits for every
// persist: the held op and the persists share one transaction.
func persistBehindHeldWriter(t *testing.T, s *Store, callers int) {
	t.Helper()
	release := holdWriter(t, s)
	results := make([]<-chan error, callers)
	for i := range results {
		results[i] = call(t, s, func() error { return s.Persist(t.Context(), testRecords("p", 1)) })
	}
	if err := release(); err != nil {
		t.Fatalf("holding op: %v", err)
	}
	for i, r := range results {
		if err := <-r; err != nil {
			t.Errorf("Persist %d: %v", i, err)
		}
	}
}

func TestGroupCommitSharesOneTransaction(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	before := s.Stats()
	const callers = 64
	persistBehindHeldWriter(t, s, callers)
	after := s.Stats()
	if commits, ops := after.Commits-before.Commits, after.Ops-before.Ops; commits != 1 || ops != callers+1 {
		t.Errorf("%d commits carrying %d ops, want 1 carrying %d", commits, ops, callers+1)
	}
	wantDepthIs(t, s, "p", callers)
}

func TestBatchIsolatesOutcomes(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	ctx := t.Context()
	seed := testRecords("fenced", 1)
	if err := s.Persist(ctx, seed); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(ctx, "fenced", ports.LeaseToken{Owner: "a", Version: 5}, 1); err != nil {
		t.Fatal(err)
	}
	good, dup, multi, good2 := testRecords("p", 1), testRecords("p", 1), testRecords("p", 3), testRecords("p", 1)
	good[0].ID, dup[0].ID, multi[2].ID = "same", "same", seed[0].ID

	release := holdWriter(t, s)
	rGood := call(t, s, func() error { return s.Persist(ctx, good) })
	rDup := call(t, s, func() error { return s.Persist(ctx, dup) })
	rStale := call(t, s, func() error {
		_, err := s.Claim(ctx, "fenced", ports.LeaseToken{Owner: "b", Version: 4}, 1)
		return err
	})
	rUnknown := call(t, s, func() error { return s.Replay(ctx, "nope", ports.LeaseToken{}, errors.New("x"), time.Now()) })
	rMulti := call(t, s, func() error { return s.Persist(ctx, multi) })
	rGood2 := call(t, s, func() error { return s.Persist(ctx, good2) })
	before := s.Stats()
	if err := release(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  <-chan error
		want error
	}{
		{"first persist", rGood, nil},
		{"duplicate persist", rDup, fault.ErrDuplicateRecord},
		{"stale claim", rStale, fault.ErrStaleFencingToken},
		{"unknown replay", rUnknown, fault.ErrNotFound},
		{"batch with a duplicate", rMulti, fault.ErrDuplicateRecord},
		{"last persist", rGood2, nil},
	} {
		if err := <-c.got; !errors.Is(err, c.want) || (c.want == nil && err != nil) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if d := s.Stats().Commits - before.Commits; d != 1 {
		t.Errorf("%d commits, want the one shared transaction", d)
	}
	// The refused multi-record batch left nothing behind.
	wantDepthIs(t, s, "p", 2)
}

func TestDatabaseFailureFailsWholeBatch(t *testing.T) {
	m := telemetry.NewMemory()
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"), WithMetrics(m, "main"))
	ctx := t.Context()
	release := holdWriter(t, s)
	rPersist := call(t, s, func() error { return s.Persist(ctx, testRecords("p", 2)) })
	rBroken := call(t, s, func() error {
		return s.w.do(ctx, false, func(tx *writeTx) error {
			_, err := tx.conn.ExecContext(context.Background(), "INSERT INTO no_such_table VALUES (1)")
			return err
		})
	})
	if err := release(); !errors.Is(err, fault.ErrUnavailable) {
		t.Errorf("holding op in the failed batch: %v, want UNAVAILABLE", err)
	}
	for name, r := range map[string]<-chan error{"persist": rPersist, "broken op": rBroken} {
		if err := <-r; !errors.Is(err, fault.ErrUnavailable) {
			t.Errorf("%s: %v, want UNAVAILABLE", name, err)
		}
	}
	wantDepthIs(t, s, "p", 0)
	if s.Stats().FailedBatches != 1 {
		t.Errorf("FailedBatches = %d, want 1", s.Stats().FailedBatches)
	}
	if got := readWriterSeries(m, "main"); got.Failed != 1 || got.Commits != 0 {
		t.Errorf("metrics after the failed batch = %+v, want 1 failed batch and no commit", got)
	}
	// The writer goes on with the next batch.
	persistN(t, s, "p", 1)
	wantDepthIs(t, s, "p", 1)
}

func TestCancelBeforeHandOverStoresNothing(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	release := holdWriter(t, s)
	ctx, cancel := context.WithCancel(t.Context())
	r := call(t, s, func() error { return s.Persist(ctx, testRecords("p", 1)) })
	cancel()
	if err := <-r; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Persist = %v, want context.Canceled", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	wantDepthIs(t, s, "p", 0)
}

func TestCancelAfterApplyKeepsTheWrite(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	release := holdWriter(t, s)
	ctx, cancel := context.WithCancel(t.Context())
	r := call(t, s, func() error { return s.Persist(ctx, testRecords("p", 1)) })
	// The next op in the same transaction cancels the caller above after
	// its record was inserted and before the commit.
	rCancel := call(t, s, func() error {
		return s.w.do(t.Context(), false, func(*writeTx) error { cancel(); return nil })
	})
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := <-rCancel; err != nil {
		t.Fatal(err)
	}
	if err := <-r; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Persist cancelled in its batch = %v, want nil or context.Canceled", err)
	}
	// Whatever the caller saw, the record is stored whole: at least once.
	wantDepthIs(t, s, "p", 1)
}

func TestCloseWaitsForTheWriter(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	release := holdWriter(t, s)
	queued := call(t, s, func() error { return s.Persist(t.Context(), testRecords("p", 1)) })
	expired, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Close(expired); !errors.Is(err, context.Canceled) {
		t.Errorf("Close with an ended context while a batch runs = %v, want context.Canceled", err)
	}
	if err := release(); err != nil {
		t.Errorf("the running op after Close began: %v", err)
	}
	// The queued Persist either joined the running batch or was refused.
	if err := <-queued; err != nil && !errors.Is(err, fault.ErrUnavailable) {
		t.Errorf("Persist queued at Close = %v, want nil or UNAVAILABLE", err)
	}
	if err := s.Close(t.Context()); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestLoneCallerDoesNotLinger(t *testing.T) {
	// A linger far beyond the test timeout: a lone caller must not wait
	// for company.
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"), WithCommitLinger(time.Hour))
	persistN(t, s, "p", 5)
	wantDepthIs(t, s, "p", 5)
}

func wantDepthIs(t *testing.T, s *Store, partition string, want int) {
	t.Helper()
	got, err := s.Depth(t.Context(), partition)
	if err != nil {
		t.Fatalf("Depth: %v", err)
	}
	if got != want {
		t.Errorf("Depth(%q) = %d, want %d", partition, got, want)
	}
}

func TestOpLeftQueuedAtExitIsRefused(t *testing.T) {
	// A writer whose loop never takes the queued op and then exits, as
	// happens when a caller queues while Close stops the loop.
	w := newWriter(nil, nil, nil, 4, 0, newWriterMetrics(telemetry.Noop(), "test"))
	applied := false
	out := make(chan error, 1)
	go func() {
		out <- w.do(t.Context(), false, func(*writeTx) error { applied = true; return nil })
	}()
	for len(w.queue) == 0 {
		if t.Context().Err() != nil {
			t.Fatal("the op never reached the queue")
		}
		runtime.Gosched()
	}
	close(w.quit)
	close(w.exited)
	if err := <-out; !errors.Is(err, fault.ErrUnavailable) {
		t.Errorf("op left queued at exit = %v, want UNAVAILABLE", err)
	}
	if applied {
		t.Error("the op left queued at exit was applied")
	}
}
