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
func BenchmarkPersistConcurrent64(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), WithSynchronous("FULL"))
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
	st := s.Stats()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	if st.Commits > 0 {
		b.ReportMetric(float64(st.Ops)/float64(st.Commits), "ops/commit")
	}
}

// BenchmarkPersistNaive is the baseline: the same records and the same
// durability (WAL, synchronous=FULL), one transaction per message, one
// message after the other, through database/sql without the store.
// BenchmarkGroupCommitVsNaive interleaves the two for a ratio.
func BenchmarkPersistNaive(b *testing.B) {
	naive := openNaive(b)
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
