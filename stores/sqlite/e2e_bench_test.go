package sqlite_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/stores/sqlite"
)

// BenchmarkOutboxEndToEnd measures a shared_outbox route on the SQLite
// store at synchronous=FULL: messages published into the memory receiver
// are persisted (group commit), acked, claimed by the drainer, sent to a
// discarding memory sender and completed. One op is one message delivered
// to the target; msgs/s is reported.
func BenchmarkOutboxEndToEnd(b *testing.B) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "e2e.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close(ctx)
	recv := memtransport.NewReceiver(memtransport.Options{NoHistory: true, QueueSize: 8192})
	snd := memtransport.NewSender(memtransport.SenderOptions{Discard: true})
	rt, err := runtime.New([]runtime.Route{{
		ID: "e2e", Receiver: recv, DeliveryMode: runtime.SharedOutbox,
		Policy: runtime.Policy{
			MaxInFlight: 256,
			Outbox: runtime.OutboxPolicy{MaxDepth: 1 << 30, BatchSize: 256, MaxBatchSize: 2048, MaxConcurrency: 64,
				Strategy: runtime.DrainStrategy{Type: runtime.AdaptiveBackoff, MinInterval: time.Millisecond, MaxInterval: 10 * time.Millisecond}},
		},
		Bindings: []runtime.Binding{{ID: "sink", Sender: snd}},
	}}, runtime.Options{Outbox: store, DLQ: store, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	payload := []byte(`{"order_id":"ord-1","amount":12.5,"currency":"EUR"}`)
	envs := make([]*messaging.Envelope, 1024)
	for i := range envs {
		envs[i] = messaging.NewEnvelopeFromImmutablePayload("orders.created", payload)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rt.Run(runCtx) }()

	b.ResetTimer()
	start := time.Now()
	go func() {
		for i := range b.N {
			if err := recv.Publish(runCtx, envs[i%len(envs)]); err != nil {
				return
			}
		}
	}()
	waitCtx, stopWait := context.WithTimeout(runCtx, 5*time.Minute)
	defer stopWait()
	if err := snd.WaitSent(waitCtx, b.N); err != nil {
		b.Fatalf("delivered %d of %d: %v", snd.Count(), b.N, err)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	if st := store.Stats(); st.Commits > 0 {
		b.ReportMetric(float64(st.Ops)/float64(st.Commits), "ops/commit")
	}
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
