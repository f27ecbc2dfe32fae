package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// writerSeries is what the writer's instruments hold for one store.
type writerSeries struct {
	Commits, Failed float64
	// Transactions observed, and the write calls they carried.
	WriteObservations int64
	Writes            float64
	// Commit durations observed, and whether any time was recorded.
	CommitObservations int64
	CommitTimed        bool
}

func readWriterSeries(m *telemetry.Memory, store string) writerSeries {
	return writerSeries{
		Commits:            m.Value("gobridge_sqlite_commits_total", store),
		Failed:             m.Value("gobridge_sqlite_failed_batches_total", store),
		WriteObservations:  m.Count("gobridge_sqlite_commit_writes", store),
		Writes:             m.Value("gobridge_sqlite_commit_writes", store),
		CommitObservations: m.Count("gobridge_sqlite_commit_seconds", store),
		CommitTimed:        m.Value("gobridge_sqlite_commit_seconds", store) > 0,
	}
}

func TestMetricsCountTransactionsNotCalls(t *testing.T) {
	m := telemetry.NewMemory()
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"), WithMetrics(m, "main"))
	const callers = 8
	persistBehindHeldWriter(t, s, callers)
	want := writerSeries{Commits: 1, WriteObservations: 1, Writes: callers + 1, CommitObservations: 1, CommitTimed: true}
	if diff := cmp.Diff(want, readWriterSeries(m, "main")); diff != "" {
		t.Errorf("writer metrics (-want +got):\n%s", diff)
	}
	if got := s.Stats(); got.Commits != 1 || got.CommitTime <= 0 || got.BatchTime <= 0 {
		t.Errorf("Stats = %+v, want one commit with its batch and commit time", got)
	}
}

func TestMetricsLabelDefaultsToFileName(t *testing.T) {
	m := telemetry.NewMemory()
	s := openTestStore(t, filepath.Join(t.TempDir(), "outbox.db"), WithMetrics(m, ""))
	persistN(t, s, "p", 2)
	got := readWriterSeries(m, "outbox.db")
	if got.Commits != 2 || got.Writes != 2 {
		t.Errorf("series under the file name = %+v, want 2 commits of one write each", got)
	}
}
