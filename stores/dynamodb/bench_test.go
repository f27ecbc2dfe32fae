package dynamodb

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// benchRecord is the record the persist benchmarks store: the SQLite
// store's benchmark record (a 256-byte payload and a few headers).
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

// BenchmarkPersist measures the DynamoDB store talking HTTP to minidyn on
// this machine: producers persisting batches of one or ten records. (A
// plugin's tests import no other plugin, so the SQLite store's figures
// come from its own benchmarks.) minidyn is not
// DynamoDB (no network round trip, no replication, one lock for every
// request), so the DynamoDB figure shows the store's own overhead and the
// SDK's, not the service's latency.
func BenchmarkPersist(b *testing.B) {
	for _, producers := range []int{1, 16} {
		for _, batch := range []int{1, 10} {
			name := fmt.Sprintf("producers=%d/batch=%d", producers, batch)
			b.Run("dynamodb-minidyn-http/"+name, func(b *testing.B) {
				emu := newEmulator(b)
				s, err := Open(context.Background(), emu.config(emu.prefix()))
				if err != nil {
					b.Fatal(err)
				}
				benchPersist(b, s, producers, batch)
			})
		}
	}
}

// benchPersist persists b.N records from producers goroutines in batches
// and reports messages per second.
func benchPersist(b *testing.B, s ports.OutboxStore, producers, batch int) {
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range producers {
		wg.Go(func() {
			for {
				from := int(next.Add(int64(batch))) - batch
				if from >= b.N {
					return
				}
				recs := make([]ports.OutboxRecord, 0, batch)
				for i := from; i < min(from+batch, b.N); i++ {
					recs = append(recs, benchRecord(i))
				}
				if err := s.Persist(context.Background(), recs); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
}

// BenchmarkRecordItem is the store's own work per persisted message
// before the SDK takes over: the item of a 256-byte record and of a
// 1 KiB JSON one (deflated).
func BenchmarkRecordItem(b *testing.B) {
	s := &Store{seq: &sequencer{tag: 7}, compress: true}
	for _, c := range []struct {
		name string
		rec  ports.OutboxRecord
	}{{"256B", benchRecord(1)}, {"json-1KiB", func() ports.OutboxRecord {
		r := benchRecord(1)
		r.Envelope.SetPayload(jsonPayload(1024)(1))
		return r
	}()}} {
		b.Run(c.name, func(b *testing.B) {
			now := time.Now()
			b.ReportAllocs()
			for b.Loop() {
				_ = s.recordItem(&c.rec, s.seq.next(now, 1)[0], now, now)
			}
		})
	}
}
