package mqtt

import "github.com/eclipse/paho.golang/paho"

// onPublish is paho's publish callback. It runs on one goroutine per
// connection, in arrival order, and must not block: it records the
// message for ordered acknowledgement and queues it for the receiver
// whose subscription matches. Messages nobody can take, or that carry
// more user properties than allowed, are acknowledged and dropped. It
// blocks only when the broker exceeds Receive Maximum (see ackState).
func (s *Session) onPublish(pr paho.PublishReceived) (bool, error) {
	p := pr.Packet
	var tok *ackToken
	if p.QoS > 0 {
		var waited bool
		if tok, waited = s.acks.track(p.QoS, p.PacketID); waited {
			s.m.overReceiveMax.Add(1)
			// Once per connection: a broker that does it once does it all along.
			if g := tok.gen; s.overWarned.Swap(g) != g {
				s.o.logger.Warn("mqtt broker sent more unacknowledged messages than receive_maximum; reading waits for the routes to settle some",
					"session", s.o.name, "receive_maximum", s.cfg.ReceiveMaximum)
			}
		}
	}
	if p.Properties != nil && len(p.Properties.User) > s.cfg.MaxUserProperties {
		s.m.overProps.Add(1)
		s.o.logger.Warn("mqtt message dropped: too many user properties", "session", s.o.name,
			"topic", p.Topic, "limit", s.cfg.MaxUserProperties)
		s.acks.settle(tok)
		return true, nil
	}
	r := s.subs.route(p.Topic)
	if r == nil {
		s.m.unrouted.Add(1)
		s.o.logger.Warn("mqtt message dropped: no receiver subscribes to its topic", "session", s.o.name, "topic", p.Topic)
		s.acks.settle(tok)
		return true, nil
	}
	r.enqueue(p, tok)
	return true, nil
}
