package sqlite

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
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
	const producers = 64
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), WithSynchronous("FULL"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(context.Background())
	ctx := context.Background()

	recs := make([]ports.OutboxRecord, producers)
	for i := range recs {
		recs[i] = benchRecord(i)
	}
	var (
		issued atomic.Int64
		wg     sync.WaitGroup
		failed = make(chan error, producers)
	)
	b.ResetTimer()
	start := time.Now()
	for p := range producers {
		wg.Go(func() {
			for issued.Add(1) <= int64(b.N) {
				r := recs[p]
				r.ID = ""
				if err := s.Persist(ctx, []ports.OutboxRecord{r}); err != nil {
					failed <- err
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	select {
	case err := <-failed:
		b.Fatal(err)
	default:
	}
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
