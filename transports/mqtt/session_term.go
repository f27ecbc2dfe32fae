package mqtt

import (
	"context"
	"errors"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// errTermOver refuses a connection attempt of a lease term whose lease is
// no longer certainly held.
var errTermOver = errors.New("the lease term is over")

// standbyDetail is the health detail of a deferred session between terms.
const standbyDetail = "standby: connects once this instance holds the lease of the route"

// DeferConnect makes the session connect only within lease terms, for an
// exclusive source: a non-shared subscription under a fixed client id
// that exactly one instance of a cluster may hold. From then on Start
// does not connect; BeginTerm connects (resuming the broker's session)
// when this instance wins the lease, and EndTerm disconnects when it
// loses or gives it up, leaving every unacknowledged message to the
// broker, which sends it again to the next holder's connection under the
// same client id.
//
// The session must resume (a client_id, session_expiry of at least a
// second and clean_start false): otherwise the broker would forget the
// subscriptions and the unacknowledged messages at every hand-over. Call
// it before Start and before any term; it fails on a session already
// started.
func (s *Session) DeferConnect() error {
	if !s.cfg.Resumes() {
		return fault.ErrInvalidConfig.WithMessage("an mqtt session that connects only while a lease is held must resume: " +
			"set client_id and session_expiry, and leave clean_start false")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.closed {
		return fault.ErrInvalidConfig.WithMessage("mqtt session: DeferConnect after Start or Close")
	}
	s.deferred = true
	// Messages of an ended term's connection belong to the broker again:
	// the next holder gets them. They are never handed out here later.
	s.acks.dropEarlier()
	s.st.set(ports.SessionDown, false, standbyDetail)
	return nil
}

// Deferred reports whether the session connects only within lease terms.
func (s *Session) Deferred() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deferred
}

// AwaitingLease reports whether the session is deferred and between
// terms: not connected because this instance does not hold the lease,
// which is where a standby should be.
func (s *Session) AwaitingLease() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deferred && s.run == nil && !s.closed && s.terminal.Load() == nil
}

// BeginTerm connects a deferred session for one lease term and returns
// once the first attempt succeeded (nil) or failed (a transient error;
// the session keeps trying within the term). valid reports whether the
// lease is still certainly held; every connection attempt of the term,
// reconnections included, checks it first, so that an instance that
// lost the lease without noticing yet (a paused process that woke up)
// does not take the broker session back from the new holder.
//
// Attach the term's receivers before BeginTerm: what the resumed session
// delivers first goes to them. The session does not assume that the
// broker still holds what this process subscribed in an earlier term
// (another instance held the session meanwhile): it subscribes every
// desired subscription again.
func (s *Session) BeginTerm(ctx context.Context, valid func() bool) error {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return fault.ErrUnavailable.WithMessage("mqtt session is closed")
	case !s.deferred:
		s.mu.Unlock()
		return fault.ErrInvalidConfig.WithMessage("mqtt session: BeginTerm on a session that is not deferred")
	case s.run != nil:
		s.mu.Unlock()
		return fault.ErrInvalidConfig.WithMessage("mqtt session: BeginTerm while a term runs")
	}
	if v := s.terminal.Load(); v != nil {
		s.mu.Unlock()
		return v
	}
	s.started = true
	s.subs.forgetApplied()
	s.first = newOutcome()
	if err := s.launch(valid); err != nil {
		s.mu.Unlock()
		return err
	}
	first := s.first
	s.mu.Unlock()
	return first.wait(ctx)
}

// EndTerm disconnects a deferred session at the end of a lease term: a
// DISCONNECT with reason 0, so that the broker keeps the session, and
// nothing received but unsettled is acknowledged, so that the broker sends
// it again to the next holder. Stop the term's routes first, and close
// their receivers after EndTerm (closed while still connected, a receiver
// would leave its topics to no one). It returns once the connection and
// its goroutines ended, or ctx ended first.
func (s *Session) EndTerm(ctx context.Context) error {
	s.mu.Lock()
	run := s.run
	s.run = nil
	s.mu.Unlock()
	if run == nil {
		return nil
	}
	run.first.set(fault.ErrUnavailable.WithMessage("mqtt session: the lease term ended"))
	err := run.shutdown(ctx)
	s.acks.endConnection()
	s.conn.Store(nil)
	s.dropOrphans()
	s.m.connected.Set(0)
	if s.terminal.Load() == nil && !s.isClosed() {
		s.st.set(ports.SessionDown, false, standbyDetail)
		s.st.emit(ports.EventDisconnected, nil)
		s.o.logger.Info("mqtt session disconnected at the end of its lease term", "session", s.o.name)
	}
	return err
}
