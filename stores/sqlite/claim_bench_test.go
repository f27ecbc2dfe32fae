package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// BenchmarkClaim256 measures Claim alone: each op claims the same 256
// records of a partition again, their claims having gone stale (the fake
// clock moves past the stale-claim age between ops), so every op updates
// and returns 256 rows in one transaction. records/s is reported.
// BenchmarkClaim256SyncOff is the same without fsync, which leaves the
// statement's own cost.
func BenchmarkClaim256(b *testing.B) { benchClaim(b, "FULL") }

// BenchmarkClaim256SyncOff is BenchmarkClaim256 at synchronous=OFF.
func BenchmarkClaim256SyncOff(b *testing.B) { benchClaim(b, "OFF") }

func benchClaim(b *testing.B, synchronous string) {
	const batch, stale = 256, time.Minute
	ctx := context.Background()
	fake := clock.NewFake(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
	s, err := Open(ctx, filepath.Join(b.TempDir(), "claim.db"),
		WithSynchronous(synchronous), WithClock(fake), WithStaleClaimAge(stale))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(ctx)
	recs := make([]ports.OutboxRecord, batch)
	for i := range recs {
		recs[i] = benchRecord(i)
	}
	if err := s.Persist(ctx, recs); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		got, err := s.Claim(ctx, "route-orders", ports.LeaseToken{}, batch)
		if err != nil || len(got) != batch {
			b.Fatalf("Claim = %d records, %v; want %d", len(got), err, batch)
		}
		fake.Advance(stale)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N*batch)/elapsed.Seconds(), "records/s")
}
