package amqp091

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/ports"
)

var _ ports.SourceHealthReporter = (*Receiver)(nil)

// SourceHealth reports whether the receiver consumes its queue right now:
// its session is connected and a consumer of this receiver is open on the
// broker (not cancelled, its channel not closed). It does not touch the
// network.
func (r *Receiver) SourceHealth() ports.SourceHealth {
	if h := r.sess.Health(context.Background()); !h.Connected {
		return ports.SourceHealth{Detail: "session not connected: " + h.Detail}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ports.SourceHealth{Detail: "receiver closed"}
	}
	for c := range r.chans {
		if c.consuming() {
			return ports.SourceHealth{Converged: true, Detail: "consuming " + r.cfg.Queue}
		}
	}
	return ports.SourceHealth{Detail: "not consuming " + r.cfg.Queue}
}

// consuming reports whether the channel still carries the consumer: not
// detached by the receiver and not closed.
func (c *consumeChan) consuming() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.detached && !c.closed
}
