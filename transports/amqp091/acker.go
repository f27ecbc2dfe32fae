package amqp091

import (
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

type tagState uint8

const (
	tagOpen tagState = iota // delivered, not settled by the route yet
	tagAck                  // acked by the route, frame not sent yet
	tagNack                 // to be nacked with requeue, frame not sent yet
	tagDone                 // frame sent (or covered by a multiple ack)
)

// ackFrame is one basic.ack or basic.nack to send.
type ackFrame struct {
	tag            uint64
	multiple, nack bool
}

// acknowledger is the part of *amqp.Channel the acker uses.
type acknowledger interface {
	Ack(tag uint64, multiple bool) error
	Nack(tag uint64, multiple, requeue bool) error
}

// acker settles the deliveries of one consume channel and coalesces acks:
// when the oldest open deliveries are all settled, one basic.ack with
// multiple=true covers the whole run. Acks above a delivery still being
// handled are held back until that gap closes, but never longer than
// holdFor: then they go out one by one, so a slow message does not keep
// the broker counting finished ones against the prefetch.
//
// Settling is combining: the caller that finds no flush running sends the
// frames for everything settled so far, including what other callers add
// meanwhile; those return at once. Nacks go out before any multiple ack
// that could cover them.
type acker struct {
	ch      acknowledger
	frames  telemetry.Counter
	holdFor time.Duration // 0: never hold, every ack alone

	mu       sync.Mutex
	base     uint64 // tag of state[0]
	state    []tagState
	held     int  // acks waiting for a gap below them to close
	acks     int  // tagAck entries in state
	nacks    int  // tagNack entries in state
	dirty    bool // settled since the last collect
	forceAll bool // send held acks now (holdFor ran out)
	flushing bool
	timer    *time.Timer
	err      error
}

func newAcker(ch acknowledger, frames telemetry.Counter, holdFor time.Duration) *acker {
	return &acker{ch: ch, frames: frames, holdFor: holdFor}
}

// track records a new delivery; tags arrive in increasing order.
func (a *acker) track(tag uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.state) == 0 && a.base == 0 {
		a.base = tag
	}
	for a.base+uint64(len(a.state)) <= tag {
		a.state = append(a.state, tagOpen)
	}
}

// settle marks tag acked (nack false) or to be requeued (nack true) and
// makes sure the frames go out.
func (a *acker) settle(tag uint64, nack bool) error {
	a.mu.Lock()
	if a.err != nil {
		err := a.err
		a.mu.Unlock()
		return err
	}
	i := tag - a.base
	if tag < a.base || i >= uint64(len(a.state)) || a.state[i] != tagOpen {
		a.mu.Unlock()
		return fault.ErrInternal.WithMessage("delivery settled twice or unknown delivery tag")
	}
	if nack {
		a.state[i] = tagNack
		a.nacks++
	} else {
		a.state[i] = tagAck
		a.acks++
	}
	a.dirty = true
	return a.flushLocked()
}

// flushHeld sends every held ack now; the hold timer and the channel's
// closing call it.
func (a *acker) flushHeld() {
	a.mu.Lock()
	a.forceAll, a.dirty = true, true
	_ = a.flushLocked()
}

// flushLocked sends frames until nothing new is settled, unless another
// caller is already doing so. It is called with a.mu held and releases it.
func (a *acker) flushLocked() error {
	if a.flushing {
		a.mu.Unlock()
		return nil
	}
	a.flushing = true
	for a.dirty && a.err == nil {
		frames := a.collect()
		a.mu.Unlock()
		err := a.send(frames)
		a.mu.Lock()
		if err != nil {
			a.err = classify(err, "acknowledge")
		}
	}
	a.flushing = false
	switch {
	case a.held > 0 && a.timer == nil && a.err == nil:
		a.timer = time.AfterFunc(a.holdFor, a.flushHeld)
	case a.held == 0 && a.timer != nil:
		a.timer.Stop()
		a.timer = nil
	}
	err := a.err
	a.mu.Unlock()
	return err
}

// collect turns the settled states into frames; a.mu is held.
func (a *acker) collect() []ackFrame {
	all := a.forceAll || a.holdFor <= 0
	a.dirty, a.forceAll = false, false
	if a.timer != nil && all {
		a.timer.Stop()
		a.timer = nil
	}
	var frames []ackFrame
	if a.nacks > 0 {
		for i, st := range a.state {
			if st == tagNack {
				frames = append(frames, ackFrame{tag: a.base + uint64(i), nack: true})
				a.state[i] = tagDone
			}
		}
		a.nacks = 0
	}
	n, last, acks := 0, -1, 0
	for n < len(a.state) && a.state[n] != tagOpen {
		if a.state[n] == tagAck {
			last = n
			acks++
		}
		n++
	}
	switch {
	case last < 0:
	case a.holdFor > 0 || acks == 1:
		frames = append(frames, ackFrame{tag: a.base + uint64(last), multiple: last > 0})
	default: // coalescing off: one frame per ack
		for i := range n {
			if a.state[i] == tagAck {
				frames = append(frames, ackFrame{tag: a.base + uint64(i)})
			}
		}
	}
	a.base += uint64(n)
	a.state = a.state[n:]
	a.acks -= acks
	if all && a.acks > 0 {
		for i, st := range a.state {
			if st == tagAck {
				frames = append(frames, ackFrame{tag: a.base + uint64(i)})
				a.state[i] = tagDone
			}
		}
		a.acks = 0
	}
	a.held = a.acks
	return frames
}

func (a *acker) send(frames []ackFrame) error {
	for _, f := range frames {
		var err error
		if f.nack {
			err = a.ch.Nack(f.tag, false, true)
		} else {
			err = a.ch.Ack(f.tag, f.multiple)
			a.frames.Add(1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// stop cancels the hold timer; the channel is going away.
func (a *acker) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.timer != nil {
		a.timer.Stop()
		a.timer = nil
	}
	a.err = fault.ErrUnavailable.WithMessage("consume channel closed")
}
