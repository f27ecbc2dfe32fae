package sqlite

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// BenchmarkStreamLogAppend appends one 200-byte event per call from 8
// goroutines per CPU, to one channel and spread over 64, on a file with
// the default synchronous=FULL. One op is one event appended (and
// committed). The SSE sender appends this way, one call per batch of
// waiting sends.
func BenchmarkStreamLogAppend(b *testing.B) {
	for _, channels := range []int{1, 64} {
		b.Run(fmt.Sprintf("channels_%d", channels), func(b *testing.B) {
			s, err := Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = s.Close(b.Context()) }()
			names := make([]string, channels)
			for i := range names {
				names[i] = fmt.Sprint("sse\x1fc", i)
			}
			event := [][]byte{bytes.Repeat([]byte("x"), 200)}
			var next atomic.Int64
			b.SetParallelism(8)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := s.AppendEvents(b.Context(), names[int(next.Add(1))%channels], event); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			st := s.Stats()
			if st.Commits > 0 {
				b.ReportMetric(float64(st.Ops)/float64(st.Commits), "ops/commit")
			}
		})
	}
}
