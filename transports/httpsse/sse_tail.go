package httpsse

import "sync/atomic"

// tail is a channel's cache of its newest events: contiguous ids, oldest
// first. It is bounded by a count (replay_buffer), by bytes per channel
// (replay_buffer_bytes) and, through total, by the bytes every channel of
// the hub caches together (replay_buffer_total_bytes). What it drops is
// still in the log; a client resuming from before the tail reads it there.
type tail struct {
	frames []*frame // frames[off:] are kept, oldest first
	off    int
	bytes  int64
	// total counts the cached bytes of every channel of the hub.
	total *atomic.Int64
}

// tailLimits are the bounds a tail keeps to.
type tailLimits struct {
	events     int
	bytes      int64
	totalBytes int64
}

// len is the number of cached frames.
func (t *tail) len() int { return len(t.frames) - t.off }

// push adds f, the event after the newest, then drops the oldest frames
// until every limit holds. A frame larger than the per-channel byte bound
// empties the tail: the cache must stay contiguous, and the log has it.
func (t *tail) push(f *frame, lim tailLimits) {
	if lim.events <= 0 {
		return
	}
	size := int64(len(f.b))
	if lim.bytes > 0 && size > lim.bytes {
		t.clear()
		return
	}
	t.frames = append(t.frames, f)
	t.bytes += size
	t.total.Add(size)
	for t.len() > 0 && (t.len() > lim.events || (lim.bytes > 0 && t.bytes > lim.bytes) ||
		(lim.totalBytes > 0 && t.total.Load() > lim.totalBytes)) {
		t.dropOldest()
	}
}

// dropOldest forgets the oldest frame, compacting the slice once half of
// it is dead, so the backing array does not pin dropped frames for long.
func (t *tail) dropOldest() {
	size := int64(len(t.frames[t.off].b))
	t.frames[t.off] = nil
	t.off++
	t.bytes -= size
	t.total.Add(-size)
	if t.off == len(t.frames) {
		t.frames, t.off = t.frames[:0], 0
		return
	}
	if t.off >= 32 && t.off*2 >= len(t.frames) {
		n := copy(t.frames, t.frames[t.off:])
		clear(t.frames[n:])
		t.frames, t.off = t.frames[:n], 0
	}
}

// clear forgets every frame and gives their bytes back to the total.
func (t *tail) clear() {
	t.total.Add(-t.bytes)
	t.frames, t.off, t.bytes = nil, 0, 0
}

// first is the id of the oldest cached frame, or 0 when empty.
func (t *tail) first() uint64 {
	if t.len() == 0 {
		return 0
	}
	return t.frames[t.off].id
}

// after returns the cached frames with an id above after, oldest first.
func (t *tail) after(after uint64) []*frame {
	kept := t.frames[t.off:]
	if len(kept) == 0 || kept[len(kept)-1].id <= after {
		return nil
	}
	// Ids are contiguous, so the first frame above after is at a known
	// index.
	i := 0
	if after >= kept[0].id {
		i = int(after - kept[0].id + 1)
	}
	return append([]*frame(nil), kept[i:]...)
}

// dropBelow forgets the frames with an id below first.
func (t *tail) dropBelow(first uint64) {
	for t.len() > 0 && t.frames[t.off].id < first {
		t.dropOldest()
	}
}
