package mqtt

import (
	"slices"
	"sync"
	"time"
)

// releaseGrace is how long the messages of a closed receiver wait for a
// replacement (a reload closes a route's receiver and attaches the new one
// right after) before the session releases them to the broker.
const releaseGrace = 2 * time.Second

// handover keeps the messages of closed receivers until an open receiver
// takes them or the session releases them. MQTT acknowledges in arrival
// order, so a message nobody will settle would hold back every later
// acknowledgement on the connection.
type handover struct {
	mu      sync.Mutex
	orphans []*inbound  // oldest first
	timer   *time.Timer // pending release; nil when none
	closed  bool
}

// rehome gives messages of a closed receiver (queued, held for a retry, or
// left unsettled by the route) to the open receiver whose subscription
// matches their topic, or keeps them for one attached within
// releaseGrace, after which they are released.
func (s *Session) rehome(ms ...*inbound) {
	s.ho.mu.Lock()
	defer s.ho.mu.Unlock()
	var kept int
	for _, m := range ms {
		if s.acks.stale(m.tok) {
			continue // the resumed session sends it again
		}
		if to := s.subs.route(m.pub.Topic); to != nil && !to.closed.Load() {
			to.q.pushFrontAll([]*inbound{m})
			continue
		}
		s.ho.orphans = append(s.ho.orphans, m)
		kept++
	}
	if kept > 0 {
		s.scheduleRelease()
	}
}

// receiverClosed rehomes what a receiver held when it was closed and
// (re)arms the release, which also detaches it, releaseGrace after the
// last Close: a reload closes several receivers before their
// replacements are all attached.
func (s *Session) receiverClosed(ms []*inbound) {
	s.rehome(ms...)
	s.ho.mu.Lock()
	defer s.ho.mu.Unlock()
	if s.ho.timer != nil {
		s.ho.timer.Reset(releaseGrace)
		return
	}
	s.scheduleRelease()
}

// adopt hands r, just attached, the kept messages it subscribes to.
func (s *Session) adopt(r *Receiver) {
	s.ho.mu.Lock()
	defer s.ho.mu.Unlock()
	var mine []*inbound
	s.ho.orphans = slices.DeleteFunc(s.ho.orphans, func(m *inbound) bool {
		if r.matches(m.pub.Topic) {
			mine = append(mine, m)
			return true
		}
		return false
	})
	if len(mine) > 0 {
		r.q.pushFrontAll(mine)
	}
}

// scheduleRelease arms the release timer unless it is armed. s.ho.mu is
// held.
func (s *Session) scheduleRelease() {
	if s.ho.timer == nil && !s.ho.closed {
		s.ho.timer = time.AfterFunc(releaseGrace, s.release)
	}
}

// release ends the wait for replacements: closed receivers are detached
// (their subscriptions are no longer desired, unless another receiver or
// the plan wants them), QoS 0 messages nobody took are dropped and
// counted as unrouted, and when QoS 1/2 messages of the current
// connection remain, the connection is dropped so that the broker sends
// them again on a fresh one (a resumed session), where they reach whoever
// subscribes to them by then.
func (s *Session) release() {
	s.ho.mu.Lock()
	s.ho.timer = nil
	if s.ho.closed {
		s.ho.mu.Unlock()
		return
	}
	orphans := s.ho.orphans
	s.ho.orphans = nil
	s.subs.detachClosed()
	s.ho.mu.Unlock()

	gen, reliable, dropped := s.acks.generation(), 0, 0
	for _, m := range orphans {
		switch {
		case m.tok == nil:
			dropped++
		case m.tok.gen == gen:
			reliable++
		}
	}
	if dropped > 0 {
		s.m.unrouted.Add(float64(dropped))
		s.o.logger.Warn("mqtt QoS 0 messages of a closed receiver dropped: no receiver took them", "session", s.o.name, "count", dropped)
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
	if reliable == 0 {
		return
	}
	s.o.logger.Warn("mqtt messages of a closed receiver released: reconnecting so that the broker sends them again",
		"session", s.o.name, "count", reliable)
	if c := s.conn.Load(); c != nil {
		_ = c.Close() // autopaho reconnects; the new connection is a new generation
	}
}

// stopHandover ends the release timer for good; Close calls it.
func (s *Session) stopHandover() {
	s.ho.mu.Lock()
	defer s.ho.mu.Unlock()
	s.ho.closed = true
	if s.ho.timer != nil {
		s.ho.timer.Stop()
		s.ho.timer = nil
	}
}

// dropOrphans forgets the kept messages of closed receivers: at the end of
// a lease term they belong to the broker again, which sends them to the
// next holder of the session.
func (s *Session) dropOrphans() {
	s.ho.mu.Lock()
	defer s.ho.mu.Unlock()
	clear(s.ho.orphans)
	s.ho.orphans = nil
}
