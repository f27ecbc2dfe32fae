package httpsse

import (
	"context"
	"errors"
	"time"
)

// appendReq is one send waiting for its event to be appended to the
// channel's log. Sends to one channel are appended in batches: the first
// send that finds no append in flight leads, takes every waiting send
// into one AppendEvents call, queues the events for the subscribers in
// log order, answers the batch and hands the lead to the first send that
// arrived meanwhile. A leader thus writes one batch only.
type appendReq struct {
	data []byte
	done chan error // buffered; errLead hands over the lead
	// taken and lead are guarded by the channel's mu.
	taken bool // in a batch being appended
	lead  bool // told to lead the next batch
}

// errLead tells a waiting send that it leads the next batch.
var errLead = errors.New("lead the next append")

// appendTimeout bounds one AppendEvents call. It runs detached from the
// leading send's context, since it carries other sends too.
const appendTimeout = 30 * time.Second

// publish appends an event with data to the named channel's log and, once
// it is there, queues it for every subscriber, disconnecting those whose
// queue is full. nil means the event is in the log.
func (h *hub) publish(ctx context.Context, name string, data []byte) error {
	ch, err := h.channel(ctx, name, false)
	if err != nil {
		return err
	}
	if len(ch.subs) == 0 {
		if h.cfg.NoSubscriber == NoSubscriberRefuse {
			ch.mu.Unlock()
			h.m.refused.Add(1)
			return errNoListener.With("channel", name)
		}
		h.m.unheard.Add(1)
	}
	ch.used = time.Now()
	r := h.reqs.Get().(*appendReq)
	r.data, r.taken, r.lead = data, false, false
	ch.pending = append(ch.pending, r)
	if ch.appending {
		if lead, err := h.await(ctx, ch, r); !lead {
			return err
		}
	}
	err = h.lead(ch, r)
	h.recycle(r)
	return err
}

// recycle returns a request whose answer was read, and to which nobody
// will write again, to the pool.
func (h *hub) recycle(r *appendReq) {
	r.data = nil
	h.reqs.Put(r)
}

// await waits, ch.mu held on entry, until r's batch was appended or r is
// told to lead. It returns true, with ch.mu held again, when r leads the
// next batch; else r's outcome, without the lock. When ctx ends first, a
// send still waiting is withdrawn; one whose batch is in flight may or may
// not get appended, as for any store write whose context ended.
func (h *hub) await(ctx context.Context, ch *channel, r *appendReq) (bool, error) {
	ch.mu.Unlock()
	select {
	case err := <-r.done:
		if err == errLead {
			ch.mu.Lock()
			return true, nil
		}
		h.recycle(r)
		return false, err
	case <-ctx.Done():
	}
	ch.mu.Lock()
	switch {
	case r.lead:
		<-r.done // the errLead sent with it
		return true, nil
	case !r.taken:
		for i, p := range ch.pending {
			if p == r {
				ch.pending = append(ch.pending[:i], ch.pending[i+1:]...)
				break
			}
		}
		ch.mu.Unlock()
		h.recycle(r)
		return false, logError("send cancelled while waiting for the replay log", ctx.Err())
	}
	// r's batch is in flight and its leader will still answer it: r is
	// not recycled.
	ch.mu.Unlock()
	return false, logError("send cancelled while waiting for the replay log", ctx.Err())
}

// lead appends every waiting send of ch, r among them, in one batch, and
// returns r's outcome. ch.mu is held on entry and released on return.
func (h *hub) lead(ch *channel, r *appendReq) error {
	ch.appending = true
	// Only the leader touches the batch buffers, so they are reused.
	batch, data := ch.pending, ch.data[:0]
	ch.pending = ch.spare[:0]
	for _, p := range batch {
		p.taken = true
		data = append(data, p.data)
	}
	ch.mu.Unlock()

	first, err := h.append(h.key(ch.name), data)

	ch.mu.Lock()
	if err != nil {
		h.m.appendFailures.Add(1)
		err = logError("cannot append to the replay log", err)
	} else {
		h.deliver(ch, first, data)
	}
	for _, p := range batch {
		if p != r {
			p.done <- err
		}
	}
	if len(ch.pending) > 0 {
		next := ch.pending[0]
		next.lead = true
		next.done <- errLead
	} else {
		ch.appending = false
	}
	clear(batch)
	clear(data)
	ch.spare, ch.data = batch[:0], data[:0]
	ch.mu.Unlock()
	return err
}

// append runs one AppendEvents under the hub's context, bounded by
// appendTimeout unless the log is the sender's own memory log, which
// never blocks.
func (h *hub) append(key string, data [][]byte) (uint64, error) {
	if neverBlocks(h.log) {
		return h.log.AppendEvents(h.base, key, data)
	}
	ctx, cancel := context.WithTimeout(h.base, appendTimeout)
	defer cancel()
	return h.log.AppendEvents(ctx, key, data)
}

// fanOut adds f, the event after the newest, to the tail and queues it
// for every subscriber, disconnecting those whose queue is full. ch.mu is
// held.
func (h *hub) fanOut(ch *channel, f *frame) {
	ch.tail.push(f, h.tailLimits())
	for s := range ch.subs {
		select {
		case s.queue <- f:
		default:
			delete(ch.subs, s)
			s.kick()
			h.m.slow.Add(1)
		}
	}
	ch.last = f.id
}

// deliver queues the events just appended as first, first+1, … for the
// subscribers and the tail. ch.mu is held.
func (h *hub) deliver(ch *channel, first uint64, data [][]byte) {
	if first != ch.last+1 {
		h.catchUp(ch, first)
	}
	var bytes int64
	for i, d := range data {
		id := first + uint64(i)
		h.fanOut(ch, &frame{id: id, b: encodeFrame(id, d)})
		bytes += int64(len(d))
	}
	h.m.events.Add(float64(len(data)))
	h.m.appended.Add(float64(len(data)))
	h.dirty.grow(ch.name, len(data), bytes)
}

// catchUp handles an append whose first number does not follow the last
// event this process queued. Numbers in between belong to an append whose
// outcome its caller never learnt (its context ended); they are read from
// the log and queued, so subscribers miss nothing. A first number at or
// below the last one means the log was replaced under the sender: the
// tail is dropped and subscribers are disconnected, to resume from the
// log. ch.mu is held.
func (h *hub) catchUp(ch *channel, first uint64) {
	if first > ch.last+1 {
		ctx, cancel := context.WithTimeout(h.base, appendTimeout)
		defer cancel()
		for ch.last+1 < first {
			evs, err := h.log.ReadEvents(ctx, h.key(ch.name), ch.last, int(min(first-1-ch.last, 256)))
			if err != nil || len(evs) == 0 || evs[0].Seq != ch.last+1 {
				break
			}
			for _, e := range evs {
				if e.Seq >= first {
					break
				}
				h.fanOut(ch, &frame{id: e.Seq, b: encodeFrame(e.Seq, e.Data)})
			}
		}
		if ch.last+1 == first {
			return
		}
	}
	// Could not fill the hole, or the numbering went back.
	ch.reset()
	ch.last = first - 1
	ch.first = 1 // not known: reads of the log find out
}
