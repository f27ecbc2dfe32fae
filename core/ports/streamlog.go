package ports

import (
	"context"
	"time"
)

// DefaultStreamReadLimit is the page size a StreamLog's ReadEvents gives a limit
// of 0 or less.
const DefaultStreamReadLimit = 100

// StreamEvent is one event of a channel's log.
type StreamEvent struct {
	// Seq is the event's sequence number in its channel, given by AppendEvents.
	Seq uint64
	// Data is the event's content, exactly as appended.
	Data []byte
	// AppendedAt is when the store appended it, by the store's clock.
	AppendedAt time.Time
}

// StreamSpan describes what a channel's log holds. Last is the sequence
// number of the newest event ever appended (0 for a channel that never had
// one); First is that of the oldest event still kept. The log keeps the
// events First..Last, every one of them; an empty log has First = Last+1,
// whether nothing was ever appended (1, 0) or everything was trimmed.
type StreamSpan struct {
	First uint64
	Last  uint64
}

// Empty reports whether the span holds no event.
func (s StreamSpan) Empty() bool { return s.First > s.Last }

// Len is the number of events the span holds.
func (s StreamSpan) Len() uint64 {
	if s.Empty() {
		return 0
	}
	return s.Last - s.First + 1
}

// StreamBounds limits what TrimEvents keeps of a channel's log. A zero field
// puts no bound on its dimension.
type StreamBounds struct {
	// MaxEvents is the most events kept.
	MaxEvents int
	// MaxBytes is the most bytes of event data kept.
	MaxBytes int64
	// MaxAge drops events appended longer ago than this.
	MaxAge time.Duration
}

// StreamTrim reports what a TrimEvents call removed and what the log
// holds after it.
type StreamTrim struct {
	// Events and Bytes are what the trim removed.
	Events int
	Bytes  int64
	// Span is what the channel's log holds after the trim.
	Span StreamSpan
}

// StreamLog keeps, per named channel, an append-only log of events for
// clients that read a stream and resume it after a break (the SSE
// sender's replay log). A persistent store keeps it across restarts.
//
// Sequence numbers: each channel numbers its events 1, 2, 3, … in append
// order, without holes; a number is never given twice, trimmed or not, so
// a reader that saw event n has seen exactly the events up to n that it
// read. TrimEvents only ever removes the oldest events of a channel, so what is
// kept is always the unbroken range EventSpan describes.
//
// Durability: once AppendEvents returned nil its events survive a crash
// of the process (a persistent store) and are returned by ReadEvents until
// trimmed. When AppendEvents fails, none of its events were appended,
// except that a call whose context ended may have been applied as a whole (the caller
// cannot tell): a reader then finds the events by their numbers.
//
// Channels are independent: appends and trims of one never change the
// numbers or contents of another. A channel that was never appended to
// reads as empty, with the span (1, 0).
type StreamLog interface {
	// AppendEvents stores events, in order, at the end of channel's log,
	// in one durable write, and returns the sequence number given to the
	// first; the others follow one by one. Appending no event returns the
	// next number to be given and changes nothing.
	AppendEvents(ctx context.Context, channel string, events [][]byte) (first uint64, err error)
	// ReadEvents returns the kept events of channel whose sequence number is
	// above after, oldest first, at most limit of them
	// (DefaultStreamReadLimit when 0 or less). The returned data is the
	// caller's to keep.
	ReadEvents(ctx context.Context, channel string, after uint64, limit int) ([]StreamEvent, error)
	// EventSpan returns which events channel's log holds.
	EventSpan(ctx context.Context, channel string) (StreamSpan, error)
	// TrimEvents removes the oldest events of channel until what is kept
	// is within every bound of b, and reports what it removed.
	TrimEvents(ctx context.Context, channel string, b StreamBounds) (StreamTrim, error)
}
