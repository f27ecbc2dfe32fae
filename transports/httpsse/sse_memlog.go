package httpsse

import (
	"context"
	"sync"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/streamlog"
)

// memoryLog is the sender's own replay log when no store holds it: a
// streamlog.Memory whose channels together keep at most max bytes of
// event data (memory_log_max_bytes). Each channel is also trimmed to its
// own bounds by the trimmer; this bound adds what a per-channel bound
// cannot, a ceiling on the heap whatever the number of channels. Past
// it, the oldest events of the whole log go first, whichever channel
// they belong to, at append time.
type memoryLog struct {
	*streamlog.Memory
	max int64
	// trimmed tells the hub a channel's log now starts at first; set
	// before the first append.
	trimmed func(key string, first uint64)

	mu    sync.Mutex
	total int64         // data bytes appended and not yet trimmed
	live  int           // events appended and not yet trimmed
	order []appendedRef // events in append order, oldest first from off
	off   int
	first map[string]uint64 // per key: the first event not yet trimmed
}

// appendedRef is one appended event, as the log-wide bound sees it.
type appendedRef struct {
	key  string
	seq  uint64
	size int64
}

func newMemoryLog(max int64) *memoryLog {
	return &memoryLog{Memory: streamlog.NewMemory(nil), max: max, first: map[string]uint64{}}
}

// AppendEvents appends to the memory log, then trims the oldest events of
// the whole log until it is within its byte bound again.
func (l *memoryLog) AppendEvents(ctx context.Context, key string, events [][]byte) (uint64, error) {
	first, err := l.Memory.AppendEvents(ctx, key, events)
	if err != nil {
		return first, err
	}
	l.mu.Lock()
	for i, e := range events {
		l.order = append(l.order, appendedRef{key: key, seq: first + uint64(i), size: int64(len(e))})
		l.total += int64(len(e))
	}
	l.live += len(events)
	moved := l.enforceLocked()
	l.mu.Unlock()
	for key, first := range moved {
		l.trimmed(key, first)
	}
	return first, nil
}

// enforceLocked trims the oldest events until the log is within max, and
// returns the keys whose first event moved. l.mu is held.
func (l *memoryLog) enforceLocked() map[string]uint64 {
	var moved map[string]uint64
	for l.max > 0 && l.total > l.max && l.off < len(l.order) {
		ref := l.order[l.off]
		l.order[l.off] = appendedRef{}
		l.off++
		if ref.seq < l.first[ref.key] {
			continue // trimmed already, and counted then
		}
		span, err := l.Memory.EventSpan(context.Background(), ref.key)
		if err != nil {
			continue
		}
		// Keep the events after ref. A zero MaxEvents means no bound, so
		// "keep none" is said with bytes: at most one event of at most
		// one byte stays.
		b := ports.StreamBounds{MaxEvents: int(span.Last - ref.seq)}
		if b.MaxEvents == 0 {
			b.MaxBytes = 1
		}
		tr, err := l.Memory.TrimEvents(context.Background(), ref.key, b)
		if err != nil {
			continue
		}
		l.total -= tr.Bytes
		l.live -= tr.Events
		l.first[ref.key] = tr.Span.First
		if moved == nil {
			moved = map[string]uint64{}
		}
		moved[ref.key] = tr.Span.First
	}
	l.compactLocked()
	return moved
}

// compactLocked drops the references to events that are gone once they
// outnumber the live ones, so that the order list stays proportional to
// what the log keeps. l.mu is held.
func (l *memoryLog) compactLocked() {
	if len(l.order)-l.off <= 2*l.live+1024 {
		return
	}
	kept := l.order[:0]
	for _, ref := range l.order[l.off:] {
		if ref.seq >= l.first[ref.key] {
			kept = append(kept, ref)
		}
	}
	clear(l.order[len(kept):])
	l.order, l.off = kept, 0
}

// TrimEvents trims one channel to its bounds and counts what went.
func (l *memoryLog) TrimEvents(ctx context.Context, key string, b ports.StreamBounds) (ports.StreamTrim, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tr, err := l.Memory.TrimEvents(ctx, key, b)
	if err == nil {
		l.total -= tr.Bytes
		l.live -= tr.Events
		l.first[key] = max(l.first[key], tr.Span.First)
	}
	return tr, err
}

// neverBlocks reports whether log is a memory log, whose calls return at
// once and so need no timeout.
func neverBlocks(log ports.StreamLog) bool {
	switch log.(type) {
	case *streamlog.Memory, *memoryLog:
		return true
	}
	return false
}
