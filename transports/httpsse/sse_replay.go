package httpsse

import (
	"context"
	"strconv"
	"time"
)

// GapEvent is the event type of the notice a resuming client gets when
// events it asked for are gone: `event: gobridge.gap`, without an id, so
// the client's Last-Event-ID stays where it was. Its data is a JSON
// object, see Gap.
const GapEvent = "gobridge.gap"

// Gap reasons.
const (
	// GapTrimmed: events after the client's Last-Event-ID were trimmed
	// from the channel's log (count, bytes or age bound).
	GapTrimmed = "trimmed"
	// GapUnknownID: the client's Last-Event-ID is newer than any event of
	// the channel's log (the log was emptied or replaced, for example a
	// bridge started on a new store). Everything the log keeps follows.
	GapUnknownID = "unknown_id"
)

// startMode is how a subscription starts.
type startMode int

const (
	startLive     startMode = iota // new events only
	startResume                    // after the client's Last-Event-ID
	startEarliest                  // everything the log keeps
)

// replayPlan is what a new stream sends before the live events: frames
// from the tail, or the log's events after `after` up to upTo, preceded
// by a gap notice when events the client asked for are gone.
type replayPlan struct {
	frames  []*frame
	fromLog bool
	after   uint64 // replay events above this id ...
	upTo    uint64 // ... up to this one; the live queue has the rest
	// requested is the client's Last-Event-ID; checkGap says whether a
	// hole after it is reported, unknownID whether it is newer than the
	// log's newest event (first and upTo describe the log then).
	requested uint64
	checkGap  bool
	unknownID bool
	first     uint64
}

// subscribe registers a stream of the client at addr on the named
// channel and returns it with its replay plan. It refuses it when the
// sender, the client's address or the channel has all the streams it may.
func (h *hub) subscribe(ctx context.Context, name, addr string, mode startMode, last uint64) (*channel, *subscriber, replayPlan, error) {
	h.mu.Lock()
	switch {
	case h.clients >= h.cfg.MaxClients:
		h.mu.Unlock()
		return nil, nil, replayPlan{}, errMaxClients
	case h.perAddr[addr] >= h.cfg.MaxClientsPerAddress:
		h.mu.Unlock()
		return nil, nil, replayPlan{}, errAddrFull
	}
	h.clients++ // reserved; given back on failure
	h.perAddr[addr]++
	h.mu.Unlock()
	giveBack := func() {
		h.mu.Lock()
		h.releaseLocked(addr)
		h.mu.Unlock()
	}
	ch, err := h.channel(ctx, name, true)
	if err != nil {
		giveBack()
		return nil, nil, replayPlan{}, err
	}
	if len(ch.subs) >= h.cfg.MaxSubscribersPerChannel {
		ch.mu.Unlock()
		giveBack()
		return nil, nil, replayPlan{}, errChanFull
	}
	defer ch.mu.Unlock()
	s := &subscriber{queue: make(chan *frame, h.cfg.ClientBuffer), kicked: make(chan struct{}), addr: addr}
	p := replayPlan{upTo: ch.last, first: ch.first, requested: last}
	switch mode {
	case startLive:
		p.after = ch.last
	case startEarliest:
		p.after = ch.first - 1
	case startResume:
		if last > ch.last {
			p.unknownID = true
			p.after = ch.first - 1
			h.m.unknownIDs.Add(1)
		} else {
			p.after, p.checkGap = last, true
		}
	}
	if p.after < p.upTo {
		if tf := ch.tail.first(); tf != 0 && tf <= p.after+1 {
			// The tail starts at or after the log's first event, so
			// nothing in between is missing.
			p.frames = ch.tail.after(p.after)
			p.checkGap = false
			h.m.replayed.Add(float64(len(p.frames)))
		} else {
			p.fromLog = true
		}
	}
	ch.subs[s] = struct{}{}
	ch.used = time.Now()
	h.m.subscribers.Add(1)
	return ch, s, p, nil
}

// replay writes a stream's plan: the gap notice when due, then the
// events up to the plan's upTo, from the tail or read from the log page
// by page. It reports whether the stream still works.
func (s *SSESender) replay(ctx context.Context, st *stream, name string, p replayPlan) bool {
	if p.unknownID {
		s.m.gaps.Add(1)
		st.write(gapFrame(GapUnknownID, p.requested, p.first, p.upTo))
	}
	for _, f := range p.frames {
		st.write(f.b)
	}
	if !p.fromLog {
		return st.flush()
	}
	after, checkGap := p.after, p.checkGap
	for after < p.upTo {
		evs, err := s.hub.log.ReadEvents(ctx, s.hub.key(name), after, replayPage)
		if err != nil {
			s.o.logger.Warn("sse replay: cannot read the replay log; closing the stream", "sender", s.o.name, "channel", name, "err", err)
			return false
		}
		if checkGap {
			checkGap = false
			next := p.upTo + 1
			if len(evs) > 0 {
				next = evs[0].Seq
			}
			if next > after+1 {
				s.m.gaps.Add(1)
				s.m.replayGaps.Add(1)
				st.write(gapFrame(GapTrimmed, p.requested, next, p.upTo))
			}
		}
		if len(evs) == 0 {
			break
		}
		n := 0
		for _, e := range evs {
			if e.Seq > p.upTo {
				break // the live queue has it
			}
			st.write(encodeFrame(e.Seq, e.Data))
			after = e.Seq
			n++
		}
		s.m.replayed.Add(float64(n))
		if !st.flush() {
			return false
		}
		if n < len(evs) {
			break
		}
	}
	return st.flush()
}

// replayPage is how many events a replay reads from the log at a time.
const replayPage = 256

// gapFrame renders the gap notice. For GapTrimmed, missed counts the
// events after last that are gone: the log numbers events without holes.
func gapFrame(reason string, last, first, newest uint64) []byte {
	b := make([]byte, 0, 160)
	b = append(b, "event: "+GapEvent+"\ndata: {\"reason\":\""...)
	b = append(b, reason...)
	b = append(b, "\",\"last_event_id\":"...)
	b = strconv.AppendUint(b, last, 10)
	b = append(b, ",\"first_id\":"...)
	b = strconv.AppendUint(b, first, 10)
	if reason == GapTrimmed {
		b = append(b, ",\"missed\":"...)
		b = strconv.AppendUint(b, first-1-last, 10)
	}
	b = append(b, ",\"newest_id\":"...)
	b = strconv.AppendUint(b, newest, 10)
	return append(b, "}\n\n"...)
}
