package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// benchRecord is the record the persist benchmarks store: a 256-byte
// payload and a few headers, like a small business event.
func benchRecord(i int) ports.OutboxRecord {
	payload := make([]byte, 256)
	for j := range payload {
		payload[j] = byte(i + j)
	}
	env := messaging.NewEnvelopeFromImmutablePayload("orders.created", payload)
	env.SetHeader("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	env.SetHeader(messaging.HeaderCorrelationID, env.ID)
	env.SetHeader("attempt", 1)
	return ports.OutboxRecord{Partition: "route-orders", RouteID: "route-orders", BindingID: "warehouse",
		Address: "queue://warehouse", Envelope: env}
}

// BenchmarkPersistConcurrent64 measures group commit: 64 producers each
// persist one-record batches at synchronous=FULL; every Persist returns
// only after its commit was fsynced.
func BenchmarkPersistConcurrent64(b *testing.B) { benchPersist64(b, "FULL") }

// BenchmarkPersistConcurrent64SyncOff is the same without any fsync, which
// no deployment should run: it shows what the writer's CPU alone allows,
// so that the difference to BenchmarkPersistConcurrent64 is what the disk
// costs.
func BenchmarkPersistConcurrent64SyncOff(b *testing.B) { benchPersist64(b, "OFF") }

func benchPersist64(b *testing.B, synchronous string) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), WithSynchronous(synchronous))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(context.Background())
	group := newGroupProducers(s, 64)
	defer group.stop()
	b.ResetTimer()
	start := time.Now()
	if err := group.run(b.N); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	reportWriter(b, s.Stats())
}

// BenchmarkPersistNaive is the baseline: the same records and the same
// durability (WAL, synchronous=FULL), one transaction per message, one
// message after the other, through database/sql without the store.
// BenchmarkGroupCommitVsNaive interleaves the two for a ratio.
func BenchmarkPersistNaive(b *testing.B) {
	naive := openNaive(b, naiveWAL)
	defer naive.close()
	b.ResetTimer()
	start := time.Now()
	if err := naive.run(b.N); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
}

// reportWriter reports how the writer's transactions went: write calls per
// commit, and the mean time of a transaction before and in its COMMIT.
func reportWriter(b *testing.B, st Stats) {
	if st.Commits == 0 {
		return
	}
	n := float64(st.Commits)
	b.ReportMetric(float64(st.Ops)/n, "ops/commit")
	b.ReportMetric(float64(st.BatchTime.Microseconds())/n, "batch-µs/commit")
	b.ReportMetric(float64(st.CommitTime.Microseconds())/n, "commit-µs/commit")
}
