package mqtt

import "github.com/gobridge-oss/gobridge/core/ports"

var _ ports.SourceHealthReporter = (*Receiver)(nil)

// SourceHealth reports whether the receiver's subscriptions are in place:
// its session is connected and has every desired subscription (the
// subscriptions live on the session, which re-applies them after each
// reconnect), and the receiver is not closed. It does not touch the
// network.
func (r *Receiver) SourceHealth() ports.SourceHealth {
	if r.closed.Load() {
		return ports.SourceHealth{Detail: "receiver closed"}
	}
	h := r.s.st.health()
	return ports.SourceHealth{Converged: h.Connected && h.Subscribed, Detail: h.Detail}
}
