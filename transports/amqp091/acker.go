package amqp091

import (
	"sync"

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

// acker settles the deliveries of one consume channel and coalesces acks:
// when the oldest open deliveries are all settled, one basic.ack with
// multiple=true covers the whole run. Acks above a delivery still being
// handled are held back, up to hold of them; past that they are sent one
// by one so that the broker's view of unacknowledged messages (which
// prefetch bounds) never stalls the consumer.
//
// Settling is combining: the caller that finds no flush running sends the
// frames for everything settled so far, including what other callers add
// meanwhile; those return at once. Frames go out in an order that never
// lets a multiple ack cover a message meant for requeue.
type acker struct {
	ch     acknowledger
	frames telemetry.Counter
	hold   int

	mu       sync.Mutex
	base     uint64 // tag of state[0]
	state    []tagState
	dirty    bool
	flushing bool
	err      error
}

// acknowledger is the part of *amqp.Channel the acker uses.
type acknowledger interface {
	Ack(tag uint64, multiple bool) error
	Nack(tag uint64, multiple, requeue bool) error
}

func newAcker(ch acknowledger, frames telemetry.Counter, hold int) *acker {
	return &acker{ch: ch, frames: frames, hold: hold}
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
	} else {
		a.state[i] = tagAck
	}
	a.dirty = true
	if a.flushing {
		a.mu.Unlock()
		return nil
	}
	a.flushing = true
	for a.dirty && a.err == nil {
		frames := a.collect(false)
		a.mu.Unlock()
		err := a.send(frames)
		a.mu.Lock()
		if err != nil {
			a.err = classify(err, "acknowledge")
		}
	}
	a.flushing = false
	err := a.err
	a.mu.Unlock()
	return err
}

// flushHeld sends every held ack one by one; used before the channel
// closes so that messages the route finished are not requeued.
func (a *acker) flushHeld() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.flushing || a.err != nil {
		return
	}
	if err := a.send(a.collect(true)); err != nil {
		a.err = classify(err, "acknowledge")
	}
}

// collect turns the settled states into frames; a.mu is held. Nacks come
// first, so the multiple ack that may follow never covers them.
func (a *acker) collect(all bool) []ackFrame {
	a.dirty = false
	var frames []ackFrame
	for i, st := range a.state {
		if st == tagNack {
			frames = append(frames, ackFrame{tag: a.base + uint64(i), nack: true})
			a.state[i] = tagDone
		}
	}
	n, last := 0, -1
	for n < len(a.state) && a.state[n] != tagOpen {
		if a.state[n] == tagAck {
			last = n
		}
		n++
	}
	if last >= 0 {
		frames = append(frames, ackFrame{tag: a.base + uint64(last), multiple: last > 0})
	}
	a.base += uint64(n)
	a.state = a.state[n:]
	held := 0
	for _, st := range a.state {
		if st == tagAck {
			held++
		}
	}
	if all || held > a.hold {
		for i, st := range a.state {
			if st == tagAck {
				frames = append(frames, ackFrame{tag: a.base + uint64(i)})
				a.state[i] = tagDone
			}
		}
	}
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
