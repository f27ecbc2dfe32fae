package httpsse

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/itest"
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
	itest.Short(t, "sends 200 MB")
	const mib = 1 << 20
	tests := []struct {
		name     string
		cfg      SSEConfig
		log      ports.StreamLog
		channels int
		limit    int64 // live heap growth allowed
	}{
		// 64 MiB of log, overshooting by a sixteenth until the trimmer
		// runs, and 8 MiB of cache. The cache holds copies of events the
		// log keeps, so with a memory log of 16 MiB over 20 channels
		// both hold 16 MiB.
		{"memory log fallback, default bounds", SSEConfig{ReplayLog: ReplayLogMemory}, nil, 1, 96 * mib},
		{"the cache alone, default bounds", SSEConfig{}, &numberingLog{last: map[string]uint64{}}, 1, 16 * mib},
		{"memory log fallback, many channels, total bound", SSEConfig{ReplayLog: ReplayLogMemory, MemoryLogMaxBytes: 16 * mib},
			nil, 20, 48 * mib},
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
			// The event is encoded once: what Send does before the hub
			// is not what is measured, and encoding 200 MiB takes minutes
			// under the race detector. The log and the cache copy it.
			data, err := MarshalEnvelope(messaging.NewEnvelope("s", bytes.Repeat([]byte("a"), mib)))
			if err != nil {
				t.Fatal(err)
			}
			for i := range 200 {
				// Nobody subscribes: a subscriber's queue (client_buffer
				// events) is not what is measured here.
				if err := s.hub.publish(ctx, fmt.Sprint("big-", i%tt.channels), data); err != nil {
					t.Fatalf("send %d: %v", i, err)
				}
			}
			// The trimmer brings the log back within its bounds shortly
			// after the sends; the heap must stay within the limit.
			var grown int64
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			deadline := time.After(5 * time.Second)
		poll:
			for {
				if grown = liveHeap() - before; grown < tt.limit {
					break
				}
				select {
				case <-tick.C:
				case <-deadline:
					break poll
				}
			}
			t.Logf("live heap grew by %d MiB", grown/mib)
			if grown >= tt.limit {
				t.Errorf("live heap grew by %d MiB after 200 events of 1 MiB, want under %d MiB", grown/mib, tt.limit/mib)
			}
		})
	}
}

// TestSSEMemoryLogTrimsTheOldestEventsOfAllChannels fills a memory log
// past memory_log_max_bytes from three channels: the oldest events go
// first, whichever channel holds them, each channel keeps its newest
// event, and a client resuming from a trimmed event is told.
func TestSSEMemoryLogTrimsTheOldestEventsOfAllChannels(t *testing.T) {
	ctx := testContext(t)
	s := newTestSSE(t, SSEConfig{ReplayLog: ReplayLogMemory, MemoryLogMaxBytes: 10_000, ReplayFrom: ReplayFromEarliest})
	payload := string(bytes.Repeat([]byte("a"), 1000))
	for _, ch := range []string{"a", "a", "a", "a", "a", "b", "b", "b", "b", "b", "c", "c", "c", "c", "c"} {
		sendText(ctx, t, s, ch, payload)
	}
	kept := map[string][]uint64{}
	var total int
	for _, ch := range []string{"a", "b", "c"} {
		evs, err := s.hub.log.ReadEvents(ctx, s.hub.key(ch), 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			kept[ch] = append(kept[ch], e.Seq)
			total += len(e.Data)
		}
	}
	// Each event's data is a little over 1000 bytes: 15 do not fit in
	// 10,000, and what goes is a's five, then b's first.
	want := map[string][]uint64{"b": {2, 3, 4, 5}, "c": {1, 2, 3, 4, 5}}
	if diff := cmp.Diff(want, kept); diff != "" || total > 10_000 {
		t.Errorf("kept %d bytes; ids (-want +got):\n%s", total, diff)
	}
	c := openSSE(ctx, t, "http://"+s.Addr()+"/events/a", http.Header{"Last-Event-ID": {"2"}})
	if ev := c.next(ctx, t); ev.Event != GapEvent || !strings.Contains(ev.Data, `"missed":3`) {
		t.Errorf("resume from a trimmed event: %+v, want a gap notice of three missed events", ev)
	}
}
