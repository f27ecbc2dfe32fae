// Package streamlog holds a ports.StreamLog kept in memory: the memory
// store serves it as its stream log, and a sender with no store to keep its
// replay log in uses one of its own. Everything it holds dies with the
// process.
package streamlog

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Memory is a stream log in memory. It is safe for concurrent use; the
// zero value is not usable, call NewMemory.
type Memory struct {
	clk      ports.Clock
	mu       sync.Mutex
	channels map[string]*streamChannel
}

var (
	_ ports.StreamLog = (*Memory)(nil)
	_ ports.Volatile  = (*Memory)(nil)
)

// NewMemory returns an empty log that stamps events with clk (the system
// clock when nil).
func NewMemory(clk ports.Clock) *Memory {
	if clk == nil {
		clk = clock.System()
	}
	return &Memory{clk: clk, channels: map[string]*streamChannel{}}
}

// Volatile reports true: the log dies with the process.
func (*Memory) Volatile() bool { return true }

// streamChannel is one channel's log: the kept events, oldest first, and
// the number the next append starts from.
type streamChannel struct {
	events []ports.StreamEvent
	next   uint64 // number of the next event; 1 for a fresh channel
	bytes  int64  // data bytes of events
}

func (c *streamChannel) span() ports.StreamSpan {
	first := c.next
	if len(c.events) > 0 {
		first = c.events[0].Seq
	}
	return ports.StreamSpan{First: first, Last: c.next - 1}
}

// channel returns the named channel, creating it. s.mu is held.
func (s *Memory) channel(name string) *streamChannel {
	c := s.channels[name]
	if c == nil {
		c = &streamChannel{next: 1}
		s.channels[name] = c
	}
	return c
}

// AppendEvents stores copies of events at the end of channel's log and returns
// the number given to the first.
func (s *Memory) AppendEvents(ctx context.Context, channel string, events [][]byte) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	now := s.clk.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channel(channel)
	first := c.next
	for _, e := range events {
		c.events = append(c.events, ports.StreamEvent{Seq: c.next, Data: slices.Clone(e), AppendedAt: now})
		c.bytes += int64(len(e))
		c.next++
	}
	return first, nil
}

// ReadEvents returns copies of the kept events of channel after after, oldest
// first, at most limit (ports.DefaultStreamReadLimit when 0 or less).
func (s *Memory) ReadEvents(ctx context.Context, channel string, after uint64, limit int) ([]ports.StreamEvent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = ports.DefaultStreamReadLimit
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channels[channel]
	if c == nil {
		return nil, nil
	}
	// Kept events are numbered without holes, so the first one after
	// after sits at a known index.
	i := 0
	if len(c.events) > 0 && after >= c.events[0].Seq {
		i = int(min(after-c.events[0].Seq+1, uint64(len(c.events))))
	}
	end := min(i+limit, len(c.events))
	out := make([]ports.StreamEvent, 0, end-i)
	for _, e := range c.events[i:end] {
		e.Data = slices.Clone(e.Data)
		out = append(out, e)
	}
	return out, nil
}

// EventSpan returns which events channel's log holds.
func (s *Memory) EventSpan(ctx context.Context, channel string) (ports.StreamSpan, error) {
	if err := ctx.Err(); err != nil {
		return ports.StreamSpan{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.channels[channel]; c != nil {
		return c.span(), nil
	}
	return ports.StreamSpan{First: 1, Last: 0}, nil
}

// TrimEvents removes the oldest events of channel until every bound of b holds.
func (s *Memory) TrimEvents(ctx context.Context, channel string, b ports.StreamBounds) (ports.StreamTrim, error) {
	if err := ctx.Err(); err != nil {
		return ports.StreamTrim{}, err
	}
	now := s.clk.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channels[channel]
	if c == nil {
		return ports.StreamTrim{Span: ports.StreamSpan{First: 1, Last: 0}}, nil
	}
	var tr ports.StreamTrim
	n := 0
	for n < len(c.events) && c.over(n, b, now) {
		tr.Events++
		tr.Bytes += int64(len(c.events[n].Data))
		c.bytes -= int64(len(c.events[n].Data))
		n++
	}
	if n > 0 {
		c.events = slices.Clone(c.events[n:])
	}
	tr.Span = c.span()
	return tr, nil
}

// over reports whether the events from index i on break a bound of b, so
// that event i must go.
func (c *streamChannel) over(i int, b ports.StreamBounds, now time.Time) bool {
	kept := len(c.events) - i
	switch {
	case b.MaxEvents > 0 && kept > b.MaxEvents:
		return true
	case b.MaxBytes > 0 && c.bytes > b.MaxBytes:
		return true
	case b.MaxAge > 0 && now.Sub(c.events[i].AppendedAt) > b.MaxAge:
		return true
	}
	return false
}
