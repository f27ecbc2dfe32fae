package sqlite

import "github.com/gobridge-oss/gobridge/core/telemetry"

// writerMetrics are the writer's instruments, one series per store. They
// are recorded once per transaction, never per write call.
type writerMetrics struct {
	commits telemetry.Counter
	failed  telemetry.Counter
	writes  telemetry.Histogram
	commit  telemetry.Histogram
	fenced  telemetry.Counter
}

func newWriterMetrics(m telemetry.Meter, store string) writerMetrics {
	l := []string{"store"}
	return writerMetrics{
		commits: m.Counter(telemetry.Desc{Name: "gobridge_sqlite_commits_total",
			Help: "Transactions the store's writer committed.", Labels: l}, store),
		failed: m.Counter(telemetry.Desc{Name: "gobridge_sqlite_failed_batches_total",
			Help: "Transactions rolled back because of a database failure; every write call in them failed.", Labels: l}, store),
		writes: m.Histogram(telemetry.Desc{Name: "gobridge_sqlite_commit_writes",
			Help:    "Write calls (persists, claims, completes, ...) that shared one committed transaction.",
			Labels:  l,
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}}, store),
		fenced: m.Counter(telemetry.Desc{Name: "gobridge_sqlite_fenced_writes_total",
			Help: "Outbox claims, completes and replays refused because their lease token was stale: a drainer that lost its lease tried to write.", Labels: l}, store),
		commit: m.Histogram(telemetry.Desc{Name: "gobridge_sqlite_commit_seconds",
			Help:    "Time in COMMIT: the WAL write, its fsync at synchronous=FULL, and the checkpoints SQLite runs as the WAL grows.",
			Labels:  l,
			Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1}}, store),
	}
}
