package mqtt

import (
	"io"
	"sync"

	"github.com/eclipse/paho.golang/packets"
	"github.com/eclipse/paho.golang/paho/session/state"
)

// ackToken stands for one received QoS 1/2 PUBLISH until the bridge
// settles it.
type ackToken struct {
	qos  byte
	id   uint16
	gen  uint64 // the connection it arrived on
	done bool
}

// ackState is paho's session state with acknowledgements under the
// bridge's control. paho calls Ack as soon as the publish callback
// returns; here that call does nothing. The receiver settles a token
// instead, and the PUBACK (QoS 1) or PUBREC (QoS 2) goes out once every
// message received before it on the same connection was settled too:
// MQTT requires acknowledgements in the order the messages arrived.
//
// Each connection is a generation. A token from an earlier connection is
// never acknowledged on a later one; the broker redelivers its message
// when the session resumes.
//
// The state also enforces Receive Maximum on the broker: a QoS 1/2 message
// that arrives while limit messages are unacknowledged waits in track,
// which stops paho reading the connection until the route settles one, so
// a broker that sends more than it may (Mosquitto 2.0.11 does, once a
// backlog flows) fills the TCP window instead of the process's memory.
type ackState struct {
	*state.State

	mu             sync.Mutex
	room           sync.Cond // signalled when acknowledgements leave or a connection ends
	limit          int       // Receive Maximum; 0 for none
	waiting        int       // messages waiting in track for room
	gen            uint64
	order          []*ackToken // unacknowledged tokens in arrival order, from head
	head           int
	sessionPresent bool
	// earlierStale makes every token of an earlier connection stale, even
	// when the broker did not report a resumed session: set for a session
	// that connects per lease term, whose earlier messages the broker
	// hands to whoever holds the session next.
	earlierStale bool
}

func newAckState(limit int) *ackState {
	a := &ackState{State: state.NewInMemory(), limit: limit}
	a.room.L = &a.mu
	return a
}

// ConAckReceived starts a new generation, then lets paho resend what the
// session holds.
func (a *ackState) ConAckReceived(w io.Writer, cp *packets.Connect, ca *packets.Connack) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextGen()
	a.sessionPresent = ca.SessionPresent
	return a.State.ConAckReceived(w, cp, ca)
}

// ConnectionLost ends the generation: tokens still pending will not be
// acknowledged.
func (a *ackState) ConnectionLost(dp *packets.Disconnect) error {
	a.mu.Lock()
	a.nextGen()
	a.mu.Unlock()
	return a.State.ConnectionLost(dp)
}

// Ack is paho's automatic acknowledgement after the callback; the bridge
// acknowledges through settle instead.
func (a *ackState) Ack(*packets.Publish) error { return nil }

func (a *ackState) nextGen() {
	a.gen++
	clear(a.order)
	a.order, a.head = a.order[:0], 0
	a.room.Broadcast()
}

// track registers a QoS 1/2 message in arrival order. It must be called
// from paho's publish callback, which sees messages in that order. When
// the broker already has limit messages unacknowledged, it waits until an
// acknowledgement leaves or the connection ends, and reports that it
// waited.
func (a *ackState) track(qos byte, id uint16) (*ackToken, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	gen, waited := a.gen, false
	for a.limit > 0 && len(a.order)-a.head >= a.limit && a.gen == gen {
		waited = true
		a.waiting++
		a.room.Wait()
		a.waiting--
	}
	t := &ackToken{qos: qos, id: id, gen: gen}
	if a.gen == gen {
		a.order = append(a.order, t)
	}
	return t, waited
}

// settle marks t done and sends every acknowledgement that is now due. A
// nil token (QoS 0) or one from an earlier connection is ignored.
func (a *ackState) settle(t *ackToken) {
	if t == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if t.gen != a.gen || t.done {
		return
	}
	t.done = true
	if a.head < len(a.order) && a.order[a.head].done {
		defer a.room.Broadcast()
	}
	for a.head < len(a.order) && a.order[a.head].done {
		d := a.order[a.head]
		a.order[a.head] = nil
		a.head++
		// A write error means the connection is going down; the broker
		// then redelivers the message.
		_ = a.State.Ack(&packets.Publish{QoS: d.qos, PacketID: d.id})
	}
	if a.head == len(a.order) {
		a.order, a.head = a.order[:0], 0
	} else if a.head > 1024 && a.head > len(a.order)/2 {
		n := copy(a.order, a.order[a.head:])
		clear(a.order[n:])
		a.order, a.head = a.order[:n], 0
	}
}

// blocking reports whether t, still unsettled on the current connection,
// holds back the acknowledgement of a later message that is settled
// already: the route makes progress behind t, and holding t longer would
// stall the session once Receive Maximum messages are unacknowledged.
func (a *ackState) blocking(t *ackToken) bool {
	if t == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if t.gen != a.gen || t.done {
		return false
	}
	seen := false
	for _, o := range a.order[a.head:] {
		switch {
		case o == t:
			seen = true
		case seen && o.done:
			return true
		}
	}
	return false
}

// stale reports whether t belongs to an earlier connection whose session
// the broker resumed, so that the broker redelivers its message and the
// copy held here must not be handed out again.
func (a *ackState) stale(t *ackToken) bool {
	if t == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return t.gen != a.gen && (a.sessionPresent || a.earlierStale)
}

// dropEarlier makes every token of an earlier connection stale from now
// on (see earlierStale).
func (a *ackState) dropEarlier() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.earlierStale = true
}

// endConnection ends the generation of a connection the session closed
// itself (the end of a lease term): its pending tokens are never
// acknowledged.
func (a *ackState) endConnection() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextGen()
}

// generation returns the current connection's number.
func (a *ackState) generation() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.gen
}
