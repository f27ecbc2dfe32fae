package httpsse

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// frame is one encoded SSE event, shared read-only by every subscriber.
type frame struct {
	id uint64
	b  []byte
}

// subscriber is one open stream. The hub owns its queue; kicked closes
// when the hub drops it (too slow, or the sender closed).
type subscriber struct {
	queue  chan *frame
	kicked chan struct{}
	once   sync.Once
}

func (s *subscriber) kick() { s.once.Do(func() { close(s.kicked) }) }

// channel is the in-memory state of one named event stream: what this
// process knows of its log, a cache of the log's newest events (the
// tail), its subscribers and the appends waiting to be written.
type channel struct {
	name string

	mu     sync.Mutex
	loaded bool   // first and last were read from the log
	first  uint64 // oldest event the log keeps
	last   uint64 // newest event appended and queued for subscribers
	tail   []*frame
	head   int // index of the oldest frame once tail is full
	subs   map[*subscriber]struct{}
	used   time.Time // last send or subscription, for eviction

	appending bool         // an append of this channel is in flight
	pending   []*appendReq // sends waiting for the next append
	spare     []*appendReq // the leader's buffers, reused batch after batch
	data      [][]byte
	evicted   bool // dropped from the hub: look the name up again
}

// hub holds the channels of one SSE sender.
type hub struct {
	cfg SSEConfig
	m   sseMetrics
	log ports.StreamLog
	// base ends when the hub closes; appends run under it.
	base   context.Context
	cancel context.CancelFunc
	// dirty tells the trimmer which channels grew.
	dirty *dirtySet
	// reqs recycles appendReqs with their answer channels.
	reqs sync.Pool

	// prefix starts every channel's key in the log: the sender's name
	// and a separator no channel name contains, so that two senders of
	// one bridge never share a log.
	prefix string

	mu       sync.Mutex
	channels map[string]*channel
	clients  int
	closed   bool
}

func newHub(cfg SSEConfig, m sseMetrics, log ports.StreamLog, sender string) *hub {
	base, cancel := context.WithCancel(context.Background())
	h := &hub{cfg: cfg, m: m, log: log, base: base, cancel: cancel, prefix: sender + logKeySep,
		dirty: newDirtySet(), channels: map[string]*channel{}}
	h.reqs.New = func() any { return &appendReq{done: make(chan error, 1)} }
	return h
}

// logKeySep separates the sender's name from the channel's in a log key.
// Channel names hold no control characters, so the last separator of a
// key is this one, whatever the sender's name holds.
const logKeySep = "\x1f"

// key is the log's name for the channel.
func (h *hub) key(name string) string { return h.prefix + name }

var (
	errHubClosed  = fault.ErrUnavailable.WithMessage("sse sender is closed")
	errTooMany    = fault.ErrUnavailable.WithMessage("sse sender is at max_channels and every channel is busy")
	errNoListener = fault.ErrUnavailable.WithMessage("sse channel has no subscriber")
	errMaxClients = fault.ErrUnavailable.WithMessage("sse sender is at max_clients")
)

// channel returns the named channel, locked and loaded, creating it (and
// evicting the least recently used idle channel when at MaxChannels).
// A channel found evicted once locked is looked up again.
func (h *hub) channel(ctx context.Context, name string) (*channel, error) {
	for {
		now := time.Now()
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return nil, errHubClosed
		}
		ch := h.channels[name]
		if ch == nil {
			if len(h.channels) >= h.cfg.MaxChannels && !h.evictLocked() {
				h.mu.Unlock()
				return nil, errTooMany
			}
			ch = &channel{name: name, subs: map[*subscriber]struct{}{}, used: now}
			h.channels[name] = ch
		}
		h.mu.Unlock()
		ch.mu.Lock()
		if ch.evicted {
			ch.mu.Unlock()
			continue
		}
		if !ch.loaded {
			span, err := h.log.EventSpan(ctx, h.key(name))
			if err != nil {
				ch.mu.Unlock()
				return nil, logError("cannot read the replay log", err)
			}
			ch.first, ch.last, ch.loaded = span.First, span.Last, true
			// Bounds may have changed since the log was last trimmed.
			h.dirty.add(name)
		}
		return ch, nil
	}
}

// evictLocked drops the least recently used channel that nobody
// subscribes to, sends to or is loading. Its log stays in the store.
// h.mu is held.
func (h *hub) evictLocked() bool {
	var victim *channel
	var victimUsed time.Time
	for _, ch := range h.channels {
		if !ch.mu.TryLock() {
			continue // busy: loading or publishing
		}
		idle, used := len(ch.subs) == 0 && !ch.appending && len(ch.pending) == 0, ch.used
		ch.mu.Unlock()
		if idle && (victim == nil || used.Before(victimUsed)) {
			victim, victimUsed = ch, used
		}
	}
	if victim == nil || !victim.mu.TryLock() {
		return false
	}
	defer victim.mu.Unlock()
	if len(victim.subs) > 0 || victim.appending || len(victim.pending) > 0 {
		return false
	}
	victim.evicted = true
	delete(h.channels, victim.name)
	h.m.evicted.Add(1)
	return true
}

// encodeFrame renders one event. data holds no line breaks: it is compact
// JSON, in which control characters only appear escaped.
func encodeFrame(id uint64, data []byte) []byte {
	b := make([]byte, 0, len(data)+32)
	b = append(b, "id: "...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// push adds f, the event after the newest, to the tail, dropping the
// oldest frame when the tail holds capacity frames.
func (ch *channel) push(f *frame, capacity int) {
	if capacity <= 0 {
		return
	}
	if len(ch.tail) < capacity {
		ch.tail = append(ch.tail, f)
		return
	}
	ch.tail[ch.head] = f
	ch.head = (ch.head + 1) % len(ch.tail)
}

// tailFirst is the id of the oldest frame in the tail, or 0 when empty.
func (ch *channel) tailFirst() uint64 {
	if len(ch.tail) == 0 {
		return 0
	}
	return ch.tail[ch.head].id
}

// tailAfter returns the tail's frames with an id above after, oldest
// first.
func (ch *channel) tailAfter(after uint64) []*frame {
	n := len(ch.tail)
	var out []*frame
	for i := range n {
		if f := ch.tail[(ch.head+i)%n]; f.id > after {
			if out == nil {
				out = make([]*frame, 0, n-i)
			}
			out = append(out, f)
		}
	}
	return out
}

// dropBelow records that the log no longer keeps events before first and
// drops them from the tail.
func (ch *channel) dropBelow(first uint64) {
	if first <= ch.first {
		return
	}
	ch.first = first
	if tf := ch.tailFirst(); tf != 0 && tf < first {
		kept := ch.tailAfter(first - 1)
		ch.tail, ch.head = kept, 0
	}
}

// reset forgets the tail and disconnects every subscriber, for a log
// whose numbering no longer follows what this process saw. The clients
// reconnect and resume from the log.
func (ch *channel) reset() {
	ch.tail, ch.head = nil, 0
	for s := range ch.subs {
		delete(ch.subs, s)
		s.kick()
	}
}

// unsubscribe removes a stream that ended.
func (h *hub) unsubscribe(ch *channel, s *subscriber) {
	h.mu.Lock()
	h.clients--
	h.mu.Unlock()
	ch.mu.Lock()
	delete(ch.subs, s)
	ch.used = time.Now()
	ch.mu.Unlock()
	h.m.subscribers.Add(-1)
}

// close refuses further sends and subscriptions, ends every stream and
// cancels appends in flight.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	h.cancel()
	for _, ch := range h.channels {
		ch.mu.Lock()
		for s := range ch.subs {
			s.kick()
		}
		ch.mu.Unlock()
	}
}

// logError makes a replay log failure a transient UNAVAILABLE error,
// unless the store already classified it.
func logError(what string, err error) error {
	if be, ok := fault.As(err); ok && be.Class() != fault.ClassTransient {
		return fmt.Errorf("sse: %s: %w", what, err)
	}
	return fault.ErrUnavailable.WithMessage("sse: " + what).Wrap(err)
}
