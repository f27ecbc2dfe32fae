package httpio

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// TestPublishRetriesUntilTaken posts to a server that refuses every
// third request with 503 and checks that each message was taken once
// (the counter sees every sequence number) and the refusals were retried.
func TestPublishRetriesUntilTaken(t *testing.T) {
	tests := []struct {
		name        string
		load        Load
		refuseEvery int64
	}{
		{"defaults, every request taken", Load{N: 300, Size: 64}, 0},
		{"one client, every third refused", Load{N: 60, Size: 24, Concurrency: 1}, 3},
		{"paced, every fifth refused", Load{N: 40, Size: 100, Concurrency: 4, Rate: 400}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.load
			l.Run = rand.Uint64()
			c := bench.NewCounter(l.Run, l.N)
			var calls, refused atomic.Int64
			var mu sync.Mutex
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if n := calls.Add(1); tt.refuseEvery > 0 && n%tt.refuseEvery == 0 {
					refused.Add(1)
					http.Error(w, "busy", http.StatusServiceUnavailable)
					return
				}
				st, err := bench.Decode(body)
				if err != nil || r.Header.Get("Content-Type") != "application/octet-stream" {
					http.Error(w, "bad", http.StatusBadRequest)
					return
				}
				mu.Lock()
				c.Observe(st, time.Now())
				mu.Unlock()
			}))
			defer srv.Close()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			res, err := Publish(ctx, srv.URL, l)
			if err != nil {
				t.Fatal(err)
			}
			if res.Retries != refused.Load() {
				t.Errorf("retries %d, refused %d", res.Retries, refused.Load())
			}
			want := bench.Tally{N: l.N, Unique: l.N}
			if diff := cmp.Diff(want, c.Tally(), cmpopts.IgnoreFields(bench.Tally{}, "First", "Last", "P50", "P99")); diff != "" {
				t.Errorf("tally (-want +got):\n%s", diff)
			}
		})
	}
}
