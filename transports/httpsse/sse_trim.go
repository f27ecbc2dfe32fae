package httpsse

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"
)

// Trimming runs in one goroutine per sender, off the send path. A channel
// is trimmed once its appends since the last trim could have taken it
// over a bound (trimPause at most after the append that did), and every
// channel the sender knows or configures is swept every trimSweep, which
// enforces the age bound on channels nobody sends to.
const (
	trimPause = 200 * time.Millisecond
	trimSweep = 30 * time.Second
)

// dirtySet collects the channels that need a trim, and counts what each
// got since its last one.
type dirtySet struct {
	mu     sync.Mutex
	grown  map[string]*growth
	due    map[string]bool
	notify chan struct{} // capacity 1: a trim pass is wanted
}

// growth is what a channel got since its last trim.
type growth struct {
	events int
	bytes  int64
}

func newDirtySet() *dirtySet {
	return &dirtySet{grown: map[string]*growth{}, due: map[string]bool{}, notify: make(chan struct{}, 1)}
}

// add marks name for the next trim pass.
func (d *dirtySet) add(name string) {
	d.mu.Lock()
	d.due[name] = true
	d.mu.Unlock()
	d.wake()
}

// grow records events appended to name; the channel is due once they may
// have broken a bound. bounds is looked up by the caller's settings.
func (d *dirtySet) grow(name string, events int, bytes int64) {
	d.mu.Lock()
	g := d.grown[name]
	if g == nil {
		g = &growth{}
		d.grown[name] = g
	}
	g.events += events
	g.bytes += bytes
	d.mu.Unlock()
	d.wake()
}

func (d *dirtySet) wake() {
	select {
	case d.notify <- struct{}{}:
	default:
	}
}

// take returns the channels due, given each one's settings and what the
// hub knows of it, and forgets them. It holds d.mu only to copy and
// update, since known locks the hub and its channels, which call grow.
func (d *dirtySet) take(settings func(string) channelSettings, known func(string) (uint64, bool)) []string {
	d.mu.Lock()
	seen := make(map[string]growth, len(d.grown))
	for name, g := range d.grown {
		seen[name] = *g
	}
	d.mu.Unlock()
	var due []string
	for name, g := range seen {
		b := settings(name).bounds
		kept, ok := known(name)
		// The count bound is checked exactly; for bytes, appends worth
		// a sixteenth of the bound start a trim, so the log overshoots
		// it by that much at most between two passes.
		if !ok || (b.MaxEvents > 0 && kept > uint64(b.MaxEvents)) || (b.MaxBytes > 0 && g.bytes*16 >= b.MaxBytes) {
			due = append(due, name)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, name := range due {
		g := d.grown[name]
		g.events -= seen[name].events
		g.bytes -= seen[name].bytes
		if g.events <= 0 {
			delete(d.grown, name)
		}
		d.due[name] = true
	}
	out := make([]string, 0, len(d.due))
	for name := range d.due {
		out = append(out, name)
	}
	clear(d.due)
	sort.Strings(out)
	return out
}

// runTrimmer trims channels' logs until ctx ends. The sender owns it:
// Close cancels ctx and waits for it.
func (s *SSESender) runTrimmer(ctx context.Context) {
	every := s.o.sweep
	if every <= 0 {
		every = trimSweep
	}
	sweep := time.NewTicker(every)
	defer sweep.Stop()
	pause := time.NewTimer(0)
	<-pause.C
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.hub.dirty.notify:
		case <-sweep.C:
			for _, name := range s.sweepNames() {
				s.hub.dirty.add(name)
			}
		}
		for _, name := range s.hub.dirty.take(s.cfg.channel, s.hub.kept) {
			s.trim(ctx, name)
		}
		// Let appends pile up between passes, so that a busy channel
		// costs one trim per pause, not one per append.
		pause.Reset(trimPause)
		select {
		case <-ctx.Done():
			return
		case <-pause.C:
		}
	}
}

// trim trims one channel's log to its bounds and tells the hub.
func (s *SSESender) trim(ctx context.Context, name string) {
	tr, err := s.hub.log.TrimEvents(ctx, s.hub.key(name), s.cfg.channel(name).bounds)
	if err != nil {
		if ctx.Err() == nil {
			s.o.logger.Warn("sse: cannot trim the replay log; trying again later", "sender", s.o.name, "channel", name, "err", err)
			s.hub.dirty.add(name)
		}
		return
	}
	if tr.Events > 0 {
		s.m.trimmed.Add(float64(tr.Events))
		s.m.trimmedBytes.Add(float64(tr.Bytes))
	}
	s.hub.trimmed(name, tr.Span.First)
}

// sweepNames lists the channels the hub holds and those the
// configuration names.
func (s *SSESender) sweepNames() []string {
	names := map[string]bool{}
	for name := range s.cfg.Channels {
		names[name] = true
	}
	s.hub.mu.Lock()
	for name := range s.hub.channels {
		names[name] = true
	}
	s.hub.mu.Unlock()
	out := make([]string, 0, len(names))
	for name := range names {
		out = append(out, name)
	}
	return out
}

// kept returns how many events the hub believes name's log keeps, and
// whether it knows the channel.
func (h *hub) kept(name string) (uint64, bool) {
	h.mu.Lock()
	ch := h.channels[name]
	h.mu.Unlock()
	if ch == nil {
		return 0, false
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if !ch.loaded || ch.first > ch.last {
		return 0, ch.loaded
	}
	return ch.last - ch.first + 1, true
}

// trimmedKey records that the log keyed key now starts at first.
func (h *hub) trimmedKey(key string, first uint64) {
	if name, ok := strings.CutPrefix(key, h.prefix); ok {
		h.trimmed(name, first)
	}
}

// trimmed records that name's log now starts at first.
func (h *hub) trimmed(name string, first uint64) {
	h.mu.Lock()
	ch := h.channels[name]
	h.mu.Unlock()
	if ch == nil {
		return
	}
	ch.mu.Lock()
	ch.dropBelow(first)
	ch.mu.Unlock()
}
