package memory

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// The store also holds stream logs (the SSE sender's replay log), kept by
// a core/streamlog.Memory.
var _ ports.StreamLog = (*Store)(nil)

// AppendEvents stores copies of events at the end of channel's log and
// returns the number given to the first.
func (s *Store) AppendEvents(ctx context.Context, channel string, events [][]byte) (uint64, error) {
	return s.streams.AppendEvents(ctx, channel, events)
}

// ReadEvents returns copies of the kept events of channel after after,
// oldest first, at most limit (ports.DefaultStreamReadLimit when 0 or less).
func (s *Store) ReadEvents(ctx context.Context, channel string, after uint64, limit int) ([]ports.StreamEvent, error) {
	return s.streams.ReadEvents(ctx, channel, after, limit)
}

// EventSpan returns which events channel's log holds.
func (s *Store) EventSpan(ctx context.Context, channel string) (ports.StreamSpan, error) {
	return s.streams.EventSpan(ctx, channel)
}

// TrimEvents removes the oldest events of channel until every bound of b
// holds.
func (s *Store) TrimEvents(ctx context.Context, channel string, b ports.StreamBounds) (ports.StreamTrim, error) {
	return s.streams.TrimEvents(ctx, channel, b)
}
