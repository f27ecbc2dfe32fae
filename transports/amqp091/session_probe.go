package amqp091

import (
	"net"
	"time"
)

// pause waits d before the next connection attempt; false when the
// session was closed meanwhile.
//
// The backoff protects a broker that refuses or drops this client, but
// it should not keep the bridge idle once a broker that was away is back:
// after a long outage the wait has grown towards reconnect.max. So while
// it waits, pause probes the broker's port with a plain TCP dial every
// reconnect.probe_interval. A probe that fails marks the broker
// unreachable (down says it already was, when the last attempt could not
// even connect); a probe that connects after that ends the wait at once,
// with back true: the caller then restarts its backoff ladder. A broker
// that answers the probe without having been seen unreachable is not
// probed again during this wait: what failed was not the network.
func (s *Session) pause(d time.Duration, down bool) (open, back bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	every := s.cfg.Reconnect.ProbeInterval
	var tick <-chan time.Time
	if every > 0 && every < d {
		tk := time.NewTicker(every)
		defer tk.Stop()
		tick = tk.C
	}
	for {
		select {
		case <-t.C:
			return true, false
		case <-s.ctx.Done():
			return false, false
		case <-tick:
			switch {
			case !s.probe(every):
				down = true
			case down:
				s.log.Info("amqp091 broker answers again; connecting now")
				return true, true
			default:
				tick = nil
			}
		}
	}
}

// probe reports whether a TCP connection to the broker's address opens
// within timeout (and within the session's life). It sends nothing.
func (s *Session) probe(timeout time.Duration) bool {
	c, err := (&net.Dialer{Timeout: min(timeout, s.cfg.DialTimeout)}).DialContext(s.ctx, "tcp", brokerAddr(s.url.Scheme, s.url.Host))
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// brokerAddr is host with the scheme's default port when it has none.
func brokerAddr(scheme, host string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	port := "5672"
	if scheme == "amqps" {
		port = "5671"
	}
	return net.JoinHostPort(host, port)
}
