package httpsse

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// numberingLog numbers events and keeps none of their data, as a store
// on disk does: with it the heap a sender keeps is its cache alone.
type numberingLog struct {
	mu   sync.Mutex
	last map[string]uint64
}

func (l *numberingLog) AppendEvents(_ context.Context, key string, events [][]byte) (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	first := l.last[key] + 1
	l.last[key] += uint64(len(events))
	return first, nil
}

func (l *numberingLog) ReadEvents(context.Context, string, uint64, int) ([]ports.StreamEvent, error) {
	return nil, nil
}

func (l *numberingLog) EventSpan(_ context.Context, key string) (ports.StreamSpan, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return ports.StreamSpan{First: 1, Last: l.last[key]}, nil
}

func (l *numberingLog) TrimEvents(ctx context.Context, key string, _ ports.StreamBounds) (ports.StreamTrim, error) {
	span, err := l.EventSpan(ctx, key)
	span.First = 1
	return ports.StreamTrim{Span: span}, err
}

// TestSSEReplayBufferIsBoundedInBytes sends 200 events of 1 MB to one
// channel, the review's case that kept about 350 MB live through the
// count-only replay buffer: the memory the sender keeps is bounded by its
// byte bounds (the memory log's log_max_bytes plus replay_buffer_bytes),
// not by 1000 events of any size.
func TestSSEReplayBufferIsBoundedInBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 200 MB")
	}
	const mib = 1 << 20
	tests := []struct {
		name     string
		cfg      SSEConfig
		log      ports.StreamLog
		channels int
		limit    int64 // live heap growth allowed
	}{
		// 64 MiB of log, overshooting by a sixteenth until the trimmer
		// runs, and 8 MiB of cache.
		{"memory log fallback, default bounds", SSEConfig{ReplayLog: ReplayLogMemory}, nil, 1, 96 * mib},
		{"the cache alone, default bounds", SSEConfig{}, &numberingLog{last: map[string]uint64{}}, 1, 16 * mib},
		{"the cache alone, total bound over two channels", SSEConfig{ReplayBufferBytes: 64 * mib, ReplayBufferTotalBytes: 6 * mib},
			&numberingLog{last: map[string]uint64{}}, 2, 14 * mib},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			before := liveHeap()
			var opts []Option
			if tt.log != nil {
				opts = append(opts, WithStreamLog(tt.log))
			}
			s := newTestSSE(t, tt.cfg, opts...)
			var clients []*sseClient
			for i := range tt.channels {
				clients = append(clients, openSSE(ctx, t, fmt.Sprint("http://", s.Addr(), "/events/big-", i), nil))
			}
			payload := bytes.Repeat([]byte("a"), mib)
			for i := range 200 {
				env := messaging.NewEnvelope("s", payload)
				env.ID = fmt.Sprint("m-", i)
				ch := i % tt.channels
				if err := s.Send(ctx, ports.OutboundMessage{Envelope: env, Address: fmt.Sprint("big-", ch)}); err != nil {
					t.Fatalf("send %d: %v", i, err)
				}
				clients[ch].next(ctx, t) // a live client that keeps up
			}
			// The trimmer brings the log back within its bounds shortly
			// after the sends; the heap must stay within the limit.
			var grown int64
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				if grown = liveHeap() - before; grown < tt.limit || time.Now().After(deadline) {
					break
				}
			}
			t.Logf("live heap grew by %d MiB", grown/mib)
			if grown >= tt.limit {
				t.Errorf("live heap grew by %d MiB after 200 events of 1 MiB, want under %d MiB", grown/mib, tt.limit/mib)
			}
		})
	}
}
