package mqtt

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/eclipse/paho.golang/autopaho"
	"github.com/eclipse/paho.golang/paho"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// clientConfig translates the session configuration for autopaho, with
// the callbacks bound to run.
func (s *Session) clientConfig(run *connRun) autopaho.ClientConfig {
	c := s.cfg
	expiry := uint32(c.SessionExpiry / time.Second)
	recvMax := uint16(c.ReceiveMaximum)
	maxPacket := uint32(c.MaxPacketSize)
	cfg := autopaho.ClientConfig{
		ServerUrls:                    s.urls,
		TlsCfg:                        s.tls,
		KeepAlive:                     uint16(c.KeepAlive / time.Second),
		CleanStartOnInitialConnection: c.CleanStart,
		SessionExpiryInterval:         expiry,
		ReconnectBackoff:              s.backoff.delay,
		ConnectTimeout:                c.ConnectTimeout,
		AttemptConnection: func(ctx context.Context, cc autopaho.ClientConfig, u *url.URL) (net.Conn, error) {
			return s.dial(ctx, run, u)
		},
		ConnectUsername: c.Username,
		ConnectPassword: []byte(c.Password),
		OnConnectionUp: func(_ *autopaho.ConnectionManager, ca *paho.Connack) {
			s.connectionUp(run, ca)
		},
		OnConnectionDown: func() bool { return s.connectionDown(run) },
		OnConnectError:   func(err error) { s.connectError(run, err) },
		ConnectPacketBuilder: func(cp *paho.Connect, _ *url.URL) (*paho.Connect, error) {
			if cp.Properties == nil {
				cp.Properties = &paho.ConnectProperties{}
			}
			cp.Properties.ReceiveMaximum = &recvMax
			cp.Properties.MaximumPacketSize = &maxPacket
			return cp, nil
		},
		ClientConfig: paho.ClientConfig{
			ClientID:          s.clientID,
			Session:           s.acks,
			OnPublishReceived: []func(paho.PublishReceived) (bool, error){s.onPublish},
			PacketTimeout:     c.PacketTimeout,
		},
	}
	if len(cfg.ConnectPassword) == 0 {
		cfg.ConnectPassword = nil
	}
	return cfg
}

// dial opens the network connection for one attempt and puts the ingress
// guard on top of TLS or WebSocket. Within a lease term it first checks
// that the lease is still held: a process that wakes up after its lease
// expired (it was paused, say) must not take the broker session back from
// the instance that won the lease meanwhile.
func (s *Session) dial(ctx context.Context, run *connRun, u *url.URL) (net.Conn, error) {
	if v := s.terminal.Load(); v != nil {
		return nil, v
	}
	if run.ended.Load() || (run.valid != nil && !run.valid()) {
		return nil, errTermOver
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout)
	defer cancel()
	var (
		conn net.Conn
		err  error
	)
	switch strings.ToLower(u.Scheme) {
	case "mqtt", "tcp":
		var d net.Dialer
		conn, err = d.DialContext(ctx, "tcp", hostPort(u, "1883"))
	case "mqtts", "ssl", "tls":
		d := tls.Dialer{Config: s.tlsFor(u)}
		conn, err = d.DialContext(ctx, "tcp", hostPort(u, "8883"))
	case "ws":
		conn, err = dialWebSocket(ctx, u, nil)
	case "wss":
		conn, err = dialWebSocket(ctx, u, s.tlsFor(u))
	default:
		err = errors.New("unsupported scheme " + u.Scheme)
	}
	if err != nil {
		return nil, err
	}
	lim := guardLimits{maxPacket: s.cfg.MaxPacketSize, maxUserProps: s.cfg.MaxUserProperties}
	g := newGuardConn(conn, lim, s.onViolation)
	s.conn.Store(g)
	return g, nil
}

// tlsFor returns the TLS configuration for u, naming its host when no
// server name is configured.
func (s *Session) tlsFor(u *url.URL) *tls.Config {
	t := s.tls
	if t == nil {
		t = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if t.ServerName == "" {
		t = t.Clone()
		t.ServerName = u.Hostname()
	}
	return t
}

func hostPort(u *url.URL, defPort string) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), defPort)
}

// connectionUp runs on autopaho's goroutine for every connection.
func (s *Session) connectionUp(run *connRun, ca *paho.Connack) {
	if run.ended.Load() {
		return
	}
	lim := serverLimits{maxQoS: 2, retain: true}
	if p := ca.Properties; p != nil {
		if p.MaximumPacketSize != nil {
			lim.maxPacket = int(*p.MaximumPacketSize)
		}
		if p.MaximumQoS != nil {
			lim.maxQoS = *p.MaximumQoS
		}
		lim.retain = p.RetainAvailable
	}
	s.mu.Lock()
	s.server = lim
	s.mu.Unlock()
	s.backoff.up(time.Now())
	s.subs.connected(ca.SessionPresent)
	s.m.connects.Add(1)
	s.m.connected.Set(1)
	s.st.set(ports.SessionDegraded, true, "connected; applying subscriptions")
	s.st.emit(ports.EventConnected, nil)
	s.o.logger.Info("mqtt session connected", "session", s.o.name, "session_present", ca.SessionPresent)
	run.first.set(nil)
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// connectionDown runs on autopaho's goroutine after a connection ended;
// returning false stops reconnecting.
func (s *Session) connectionDown(run *connRun) bool {
	if run.ended.Load() {
		return false
	}
	s.backoff.down(time.Now())
	s.m.disconnects.Add(1)
	s.m.connected.Set(0)
	s.st.emit(ports.EventDisconnected, nil)
	if s.terminal.Load() != nil {
		return false
	}
	if s.isClosed() {
		return false
	}
	s.st.set(ports.SessionDown, false, "disconnected; reconnecting")
	s.st.emit(ports.EventReconnecting, nil)
	s.o.logger.Warn("mqtt session disconnected; reconnecting", "session", s.o.name)
	return true
}

// connectError runs (on its own goroutine) after a failed attempt. The
// error is redacted: autopaho's message names the URL.
func (s *Session) connectError(run *connRun, err error) {
	var v *IngressViolation
	if errors.As(err, &v) || run.ended.Load() {
		return // onViolation reported it, or the run is over
	}
	if errors.Is(err, errTermOver) {
		be := fault.ErrUnavailable.WithMessage("mqtt session: the lease term is over; not connecting")
		s.st.emit(ports.EventError, be)
		s.o.logger.Warn("mqtt session not connecting: this instance no longer holds the lease", "session", s.o.name)
		run.first.set(be)
		return
	}
	be := fault.ErrConnectionLost.WithMessage("mqtt session: connection attempt failed").Wrap(errors.New(redactURL(err.Error())))
	var ce *autopaho.ConnackError
	if errors.As(err, &ce) {
		be = connackFault(ce.ReasonCode)
	}
	s.st.emit(ports.EventError, be)
	s.o.logger.Warn("mqtt connection attempt failed", "session", s.o.name, "error", be)
	run.first.set(be)
	if s.terminal.Load() == nil && !s.isClosed() {
		s.st.set(ports.SessionDown, false, "connection attempt failed; reconnecting")
		s.st.emit(ports.EventReconnecting, nil)
	}
}
