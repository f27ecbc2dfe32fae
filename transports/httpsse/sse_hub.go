package httpsse

import (
	"strconv"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
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

// channel is one named event stream: its id counter, replay ring and
// subscribers.
type channel struct {
	name string

	mu      sync.Mutex
	last    uint64   // id of the newest event; ids start after the base
	ring    []*frame // the newest len(ring) <= cap events, oldest at head
	head    int
	subs    map[*subscriber]struct{}
	used    time.Time // last send or subscription, for eviction
	evicted bool
}

// hub holds the channels of one SSE sender.
type hub struct {
	cfg SSEConfig
	m   sseMetrics

	mu       sync.Mutex
	channels map[string]*channel
	clients  int
	floor    uint64 // highest id an evicted channel issued
	closed   bool
}

func newHub(cfg SSEConfig, m sseMetrics) *hub {
	return &hub{cfg: cfg, m: m, channels: map[string]*channel{}}
}

var (
	errHubClosed  = fault.ErrUnavailable.WithMessage("sse sender is closed")
	errTooMany    = fault.ErrUnavailable.WithMessage("sse sender is at max_channels and every channel has subscribers")
	errNoListener = fault.ErrUnavailable.WithMessage("sse channel has no subscriber")
	errMaxClients = fault.ErrUnavailable.WithMessage("sse sender is at max_clients")
)

// channelLocked returns the named channel, creating it (and evicting the
// least recently used idle channel when at MaxChannels). h.mu is held.
func (h *hub) channelLocked(name string, now time.Time) (*channel, error) {
	if h.closed {
		return nil, errHubClosed
	}
	if ch := h.channels[name]; ch != nil {
		return ch, nil
	}
	if len(h.channels) >= h.cfg.MaxChannels && !h.evictLocked() {
		return nil, errTooMany
	}
	// Ids start from the current time in microseconds, so they keep
	// growing across restarts and channel evictions.
	base := max(uint64(now.UnixMicro()), h.floor)
	ch := &channel{name: name, last: base, subs: map[*subscriber]struct{}{}, used: now,
		ring: make([]*frame, 0, min(h.cfg.ReplayBuffer, 64))}
	h.channels[name] = ch
	return ch, nil
}

// evictLocked drops the least recently used channel without subscribers.
func (h *hub) evictLocked() bool {
	var victim *channel
	for _, ch := range h.channels {
		ch.mu.Lock()
		idle, used := len(ch.subs) == 0, ch.used
		ch.mu.Unlock()
		if idle && (victim == nil || used.Before(victim.used)) {
			victim = ch
		}
	}
	if victim == nil {
		return false
	}
	victim.mu.Lock()
	victim.evicted = true
	h.floor = max(h.floor, victim.last)
	victim.mu.Unlock()
	delete(h.channels, victim.name)
	h.m.evicted.Add(1)
	return true
}

// publish appends an event with data to the named channel and queues it
// for every subscriber, disconnecting those whose queue is full.
func (h *hub) publish(name string, data []byte) error {
	for {
		now := time.Now()
		h.mu.Lock()
		ch, err := h.channelLocked(name, now)
		h.mu.Unlock()
		if err != nil {
			return err
		}
		ok, err := h.publishTo(ch, data, now)
		if ok || err != nil {
			return err
		}
		// The channel was evicted between lookup and lock: look again.
	}
}

func (h *hub) publishTo(ch *channel, data []byte, now time.Time) (bool, error) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.evicted {
		return false, nil
	}
	if len(ch.subs) == 0 {
		if h.cfg.NoSubscriber == NoSubscriberRefuse {
			h.m.refused.Add(1)
			return false, errNoListener.With("channel", ch.name)
		}
		h.m.unheard.Add(1)
	}
	ch.used = now
	ch.last++
	f := &frame{id: ch.last, b: encodeFrame(ch.last, data)}
	ch.push(f, h.cfg.ReplayBuffer)
	for s := range ch.subs {
		select {
		case s.queue <- f:
		default:
			delete(ch.subs, s)
			s.kick()
			h.m.slow.Add(1)
		}
	}
	h.m.events.Add(1)
	return true, nil
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

// push adds f to the replay ring, dropping the oldest event when full.
func (ch *channel) push(f *frame, capacity int) {
	if capacity == 0 {
		return
	}
	if len(ch.ring) < capacity {
		ch.ring = append(ch.ring, f)
		return
	}
	ch.ring[ch.head] = f
	ch.head = (ch.head + 1) % len(ch.ring)
}

// since returns the buffered events with an id above last, oldest first,
// and whether events the client asked for are no longer buffered.
func (ch *channel) since(last uint64) (out []*frame, gap bool) {
	n := len(ch.ring)
	for i := range n {
		f := ch.ring[(ch.head+i)%n]
		if f.id > last {
			if len(out) == 0 {
				gap = f.id > last+1
				out = make([]*frame, 0, n-i)
			}
			out = append(out, f)
		}
	}
	return out, gap
}

// subscribe registers a stream on the named channel and returns it with
// the events to replay. resume says whether the client sent a
// Last-Event-ID; without one it gets live events only.
func (h *hub) subscribe(name string, last uint64, resume bool) (*channel, *subscriber, []*frame, error) {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.clients >= h.cfg.MaxClients {
		return nil, nil, nil, errMaxClients
	}
	ch, err := h.channelLocked(name, now)
	if err != nil {
		return nil, nil, nil, err
	}
	s := &subscriber{queue: make(chan *frame, h.cfg.ClientBuffer), kicked: make(chan struct{})}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	var replay []*frame
	if resume && last < ch.last {
		var gap bool
		replay, gap = ch.since(last)
		if gap {
			h.m.replayGaps.Add(1)
		}
		h.m.replayed.Add(float64(len(replay)))
	}
	ch.subs[s] = struct{}{}
	ch.used = now
	h.clients++
	h.m.subscribers.Add(1)
	return ch, s, replay, nil
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

// close refuses further sends and subscriptions and ends every stream.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for _, ch := range h.channels {
		ch.mu.Lock()
		for s := range ch.subs {
			s.kick()
		}
		ch.mu.Unlock()
	}
}
