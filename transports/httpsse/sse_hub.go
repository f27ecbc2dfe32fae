package httpsse

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
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
	addr   string // the client's address, for max_clients_per_address
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
	tail   tail
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

	// tailBytes is what every channel's tail caches, against
	// replay_buffer_total_bytes.
	tailBytes atomic.Int64

	mu       sync.Mutex
	channels map[string]*channel
	clients  int
	perAddr  map[string]int // open streams by client address
	closed   bool
}

func newHub(cfg SSEConfig, m sseMetrics, log ports.StreamLog, sender string) *hub {
	base, cancel := context.WithCancel(context.Background())
	h := &hub{cfg: cfg, m: m, log: log, base: base, cancel: cancel, prefix: sender + logKeySep,
		dirty: newDirtySet(), channels: map[string]*channel{}, perAddr: map[string]int{}}
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
	errChanFull   = fault.ErrUnavailable.WithMessage("sse channel is at max_subscribers_per_channel")
	errAddrFull   = fault.ErrThrottled.WithMessage("sse sender is at max_clients_per_address for this client address")
)

// tailLimits are the bounds of every channel's tail.
func (h *hub) tailLimits() tailLimits {
	return tailLimits{events: h.cfg.ReplayBuffer, bytes: h.cfg.ReplayBufferBytes, totalBytes: h.cfg.ReplayBufferTotalBytes}
}

// channel returns the named channel, locked and loaded, creating it (and
// evicting the least recently used idle channel when at MaxChannels).
// A channel found evicted once locked is looked up again. A subscription
// (bySubscriber) only evicts channels whose tail is empty, so that
// subscribing to made-up names never costs a channel its cached events.
func (h *hub) channel(ctx context.Context, name string, bySubscriber bool) (*channel, error) {
	for {
		now := time.Now()
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return nil, errHubClosed
		}
		ch := h.channels[name]
		if ch == nil {
			if len(h.channels) >= h.cfg.MaxChannels && !h.evictLocked(bySubscriber) &&
				(bySubscriber || h.cachingLocked() >= h.cfg.MaxChannels) {
				h.mu.Unlock()
				return nil, errTooMany
			}
			ch = &channel{name: name, subs: map[*subscriber]struct{}{}, used: now, tail: tail{total: &h.tailBytes}}
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
			if span.Last > 0 {
				// Bounds may have changed since the log was last
				// trimmed. A log that never had an event has nothing to
				// trim, and a subscription to a made-up name must not
				// make the trimmer write to the store.
				h.dirty.add(name)
			}
		}
		return ch, nil
	}
}

// evictLocked drops the least recently used channel that nobody
// subscribes to, sends to or is loading, preferring one with an empty
// tail; onlyHollow allows no other. Its log stays in the store. h.mu is
// held.
func (h *hub) evictLocked(onlyHollow bool) bool {
	var victim *channel
	var victimUsed time.Time
	victimHollow := false
	for _, ch := range h.channels {
		if !ch.mu.TryLock() {
			continue // busy: loading or publishing
		}
		idle, used, hollow := ch.idle(), ch.used, ch.tail.len() == 0
		ch.mu.Unlock()
		if !idle || (onlyHollow && !hollow) {
			continue
		}
		if victim == nil || (hollow && !victimHollow) || (hollow == victimHollow && used.Before(victimUsed)) {
			victim, victimUsed, victimHollow = ch, used, hollow
		}
	}
	if victim == nil || !victim.mu.TryLock() {
		return false
	}
	defer victim.mu.Unlock()
	if !victim.idle() {
		return false
	}
	victim.evicted = true
	victim.tail.clear()
	delete(h.channels, victim.name)
	h.m.evicted.Add(1)
	return true
}

// cachingLocked counts the channels that cache events or are busy. A
// send may create a channel past MaxChannels while fewer than that do:
// the rest are held only by subscribers, whose number max_clients
// bounds, and must not stop the routes' sends. h.mu is held.
func (h *hub) cachingLocked() int {
	n := 0
	for _, ch := range h.channels {
		if !ch.mu.TryLock() {
			n++
			continue
		}
		if ch.tail.len() > 0 || ch.appending {
			n++
		}
		ch.mu.Unlock()
	}
	return n
}

// idle reports whether nobody subscribes to or sends to ch. ch.mu is
// held.
func (ch *channel) idle() bool {
	return len(ch.subs) == 0 && !ch.appending && len(ch.pending) == 0
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

// dropBelow records that the log no longer keeps events before first and
// drops them from the tail.
func (ch *channel) dropBelow(first uint64) {
	if first <= ch.first {
		return
	}
	ch.first = first
	ch.tail.dropBelow(first)
}

// reset forgets the tail and disconnects every subscriber, for a log
// whose numbering no longer follows what this process saw. The clients
// reconnect and resume from the log.
func (ch *channel) reset() {
	ch.tail.clear()
	for s := range ch.subs {
		delete(ch.subs, s)
		s.kick()
	}
}

// unsubscribe removes a stream that ended. A channel left idle with an
// empty tail is dropped from the hub at once: it holds nothing worth
// keeping, and subscriptions to made-up names must not pile up.
func (h *hub) unsubscribe(ch *channel, s *subscriber) {
	ch.mu.Lock()
	delete(ch.subs, s)
	ch.used = time.Now()
	ch.mu.Unlock()
	h.m.subscribers.Add(-1)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.releaseLocked(s.addr)
	if h.channels[ch.name] != ch || !ch.mu.TryLock() {
		return // gone already, or busy: eviction handles it later
	}
	defer ch.mu.Unlock()
	if ch.idle() && ch.tail.len() == 0 {
		ch.evicted = true
		delete(h.channels, ch.name)
	}
}

// releaseLocked gives back a client slot taken for addr. h.mu is held.
func (h *hub) releaseLocked(addr string) {
	h.clients--
	if h.perAddr[addr]--; h.perAddr[addr] <= 0 {
		delete(h.perAddr, addr)
	}
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
