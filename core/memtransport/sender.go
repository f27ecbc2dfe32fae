package memtransport

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// Sender is an in-memory ports.Sender. It records a copy of every accepted
// message (or, with SenderOptions.Discard, only counts it), can be told to
// fail through SenderOptions.Fail, and implements ports.Closer.
//
// The zero value is not usable; call NewSender.
type Sender struct {
	opts    SenderOptions
	closed  atomic.Bool
	count   atomic.Int64
	waiters atomic.Int32 // Wait calls in progress; Send skips the lock when zero

	mu      sync.Mutex
	sent    []ports.OutboundMessage
	changed chan struct{} // closed when count grows; nil while nobody waits
}

var (
	_ ports.Sender = (*Sender)(nil)
	_ ports.Closer = (*Sender)(nil)
)

// NewSender returns a Sender configured by opts.
func NewSender(opts SenderOptions) *Sender {
	return &Sender{opts: opts}
}

// Send accepts msg. It fails, recording nothing, when ctx has already
// ended (a transient error matching ctx.Err()), after Close (transient,
// UNAVAILABLE), for a nil envelope (rejected), or with whatever
// SenderOptions.Fail returns. Otherwise it records a clone of the envelope
// with the address, or only counts the message in discard mode.
func (s *Sender) Send(ctx context.Context, msg ports.OutboundMessage) error {
	if msg.Address == "" {
		msg.Address = s.opts.DefaultAddress
	}
	if err := s.check(ctx, msg); err != nil {
		return err
	}
	s.accept(msg)
	return nil
}

// check applies every reason to refuse msg before it is accepted.
func (s *Sender) check(ctx context.Context, msg ports.OutboundMessage) error {
	if err := ctx.Err(); err != nil {
		return ctxError(err)
	}
	if s.closed.Load() {
		return errClosed
	}
	if msg.Envelope == nil {
		return errNilEnvelope
	}
	if s.opts.Fail != nil {
		return s.opts.Fail(msg)
	}
	return nil
}

// accept records or counts msg and wakes waiters.
func (s *Sender) accept(msg ports.OutboundMessage) {
	if s.opts.Discard {
		s.count.Add(1)
		if s.waiters.Load() > 0 {
			s.mu.Lock()
			s.notifyLocked()
			s.mu.Unlock()
		}
		return
	}
	c := msg
	c.Envelope = msg.Envelope.Clone()
	s.mu.Lock()
	s.sent = append(s.sent, c)
	s.count.Add(1)
	s.notifyLocked()
	s.mu.Unlock()
}

// Count returns how many messages were accepted.
func (s *Sender) Count() int64 { return s.count.Load() }

// Sent returns the accepted messages in order, each with its own clone of
// the envelope as it was at Send time. It is empty in discard mode.
func (s *Sender) Sent() []ports.OutboundMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ports.OutboundMessage(nil), s.sent...)
}

// WaitSent blocks until at least n messages were accepted or ctx ends.
// It works in discard mode too.
func (s *Sender) WaitSent(ctx context.Context, n int) error {
	s.waiters.Add(1)
	defer s.waiters.Add(-1)
	for {
		s.mu.Lock()
		if s.count.Load() >= int64(n) {
			s.mu.Unlock()
			return nil
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Close makes every later Send fail with a transient UNAVAILABLE error.
// It is idempotent and always returns nil.
func (s *Sender) Close(context.Context) error {
	s.closed.Store(true)
	return nil
}

func (s *Sender) notifyLocked() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}
