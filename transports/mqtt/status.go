package mqtt

import (
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// status holds a session's health and its event channel.
type status struct {
	mu     sync.Mutex
	h      ports.SessionHealth
	events chan ports.SessionEvent
	closed bool
	final  bool // the session ended for good; health no longer changes
}

func (st *status) init(now time.Time) {
	st.h = ports.SessionHealth{Status: ports.SessionDown, Detail: "not started", Since: now}
	st.events = make(chan ports.SessionEvent, 64)
}

func (st *status) health() ports.SessionHealth {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.h
}

// set changes the connection part of the health; Since moves only when
// the status changes.
func (st *status) set(s ports.SessionStatus, connected bool, detail string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.final {
		return
	}
	if st.h.Status != s {
		st.h.Since = time.Now()
	}
	st.h.Status, st.h.Connected, st.h.Detail = s, connected, detail
	if !connected {
		st.h.Subscribed = false
	}
}

// subscribed records whether every desired subscription is in place; it
// only matters while connected.
func (st *status) subscribed(all bool, detail string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.h.Connected || st.final {
		return
	}
	s := ports.SessionUp
	if !all {
		s = ports.SessionDegraded
	}
	if st.h.Status != s {
		st.h.Since = time.Now()
	}
	st.h.Status, st.h.Subscribed, st.h.Detail = s, all, detail
}

// end sets a final health that later transitions cannot change.
func (st *status) end(detail string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.final {
		return
	}
	if st.h.Status != ports.SessionDown {
		st.h.Since = time.Now()
	}
	st.h = ports.SessionHealth{Status: ports.SessionDown, Detail: detail, Since: st.h.Since}
	st.final = true
}

// emit sends an event unless the buffer is full or the channel closed.
func (st *status) emit(kind ports.SessionEventKind, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return
	}
	select {
	case st.events <- ports.SessionEvent{Kind: kind, At: time.Now(), Err: err}:
	default:
	}
}

func (st *status) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.closed {
		st.closed = true
		close(st.events)
	}
}
