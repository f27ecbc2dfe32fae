package amqp091

import (
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// supervise keeps the session connected until Close: dial (with topology
// and the reconciled plan), publish the link, wait for it to drop, back
// off, repeat. It is the only goroutine the session owns.
func (s *Session) supervise() {
	defer close(s.done)
	failures := 0
	firstDone := false
	reportFirst := func(err error) {
		if !firstDone {
			firstDone = true
			s.first <- err
		}
	}
	defer reportFirst(errClosed("amqp091 session"))
	drops := 0 // connections lost in a row before they became stable
	for s.ctx.Err() == nil {
		if failures > 0 {
			s.event(ports.EventReconnecting, nil)
			s.m.reconnects.Add(1)
		}
		conn, reached, err := s.dial()
		if err == nil {
			err = s.recheckPlan(conn)
		}
		if err != nil {
			if s.ctx.Err() != nil {
				return
			}
			failures++
			reportFirst(err)
			s.setHealth(ports.SessionDown, false, err.Error())
			s.event(ports.EventError, err)
			delay := s.cfg.Reconnect.Delay(failures, s.rand())
			s.log.Warn("amqp091 connection attempt failed", "attempt", failures, "retry_in", delay, "err", err)
			open, back := s.pause(delay, !reached)
			if !open {
				return
			}
			if back {
				failures, drops = 0, 0
			}
			continue
		}
		failures = 0
		closes := conn.NotifyClose(make(chan *amqp.Error, 1))
		l := &link{conn: conn, lost: make(chan struct{})}
		upAt := time.Now()
		s.up(l)
		reportFirst(nil)
		select {
		case cerr := <-closes:
			s.down(l, cerr)
		case <-s.ctx.Done():
			s.down(l, nil)
			_ = conn.CloseDeadline(time.Now().Add(5 * time.Second))
			return
		}
		// Back off after a lost connection too. One that dropped before it
		// was stable does not restart the ladder, so a broker that accepts
		// and drops at once sees growing delays, not a reconnect storm.
		if time.Since(upAt) >= stablePeriod(s.cfg.Reconnect) {
			drops = 0
		}
		drops++
		open, back := s.pause(s.cfg.Reconnect.Delay(drops, s.rand()), false)
		if !open {
			return
		}
		if back {
			drops = 0
		}
	}
}

// stablePeriod is how long a connection must have lived for its loss to
// restart the reconnect backoff from reconnect.initial.
func stablePeriod(r ReconnectConfig) time.Duration {
	return max(r.Max, 10*time.Second)
}

// up publishes a fresh link to waiting receivers and senders.
func (s *Session) up(l *link) {
	s.mu.Lock()
	s.cur = l
	close(s.ready)
	if !s.closed { // a Close that stopped waiting already set the final health
		s.health = ports.SessionHealth{Status: ports.SessionUp, Connected: true, Subscribed: s.plan != nil,
			Detail: "connected", Since: time.Now()}
	}
	s.mu.Unlock()
	s.m.up.Set(1)
	s.log.Info("amqp091 connected", "url", redactURL(s.cfg.URL))
	s.event(ports.EventConnected, nil)
}

// down withdraws l; users notice through l.lost or their channels closing.
func (s *Session) down(l *link, cerr *amqp.Error) {
	s.mu.Lock()
	if s.cur == l {
		s.cur = nil
		s.ready = make(chan struct{})
	}
	s.mu.Unlock()
	close(l.lost)
	s.m.up.Set(0)
	if cerr == nil {
		s.setHealth(ports.SessionDown, false, "closed")
		return
	}
	err := classify(cerr, "amqp091 connection lost")
	s.setHealth(ports.SessionDown, false, err.Error())
	s.log.Warn("amqp091 connection lost", "err", err)
	s.event(ports.EventDisconnected, err)
}

func (s *Session) setHealth(st ports.SessionStatus, connected bool, detail string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	since := s.health.Since
	if s.health.Status != st {
		since = time.Now()
	}
	s.health = ports.SessionHealth{Status: st, Connected: connected, Subscribed: connected && s.plan != nil,
		Detail: detail, Since: since}
}

// event offers ev to the reader without blocking.
func (s *Session) event(kind ports.SessionEventKind, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	select {
	case s.events <- ports.SessionEvent{Kind: kind, At: time.Now(), Err: err}:
	default:
	}
}

// recheckPlan re-applies the last reconciled plan to a new connection.
func (s *Session) recheckPlan(conn *amqp.Connection) error {
	s.mu.Lock()
	plan := s.plan
	s.mu.Unlock()
	if plan == nil {
		return nil
	}
	if err := checkPlan(conn, *plan); err != nil {
		_ = conn.Close()
		return err
	}
	return nil
}

// checkPlan verifies, with passive declarations, that the plan's queues
// and exchanges exist. A failed passive declaration closes the channel,
// so each check gets its own.
func checkPlan(conn *amqp.Connection, plan ports.SessionPlan) error {
	check := func(what, name string, f func(ch *amqp.Channel) error) error {
		ch, err := conn.Channel()
		if err != nil {
			return classify(err, "open channel")
		}
		defer func() { _ = ch.Close() }()
		if err := f(ch); err != nil {
			return classify(err, what+" "+name)
		}
		return nil
	}
	for _, sub := range plan.Subscriptions {
		if err := check("queue", sub.Source, func(ch *amqp.Channel) error {
			_, err := ch.QueueDeclarePassive(sub.Source, false, false, false, false, nil)
			return err
		}); err != nil {
			return err
		}
	}
	for _, ex := range plan.Publishers {
		if ex == "" {
			continue // the default exchange always exists
		}
		if err := check("exchange", ex, func(ch *amqp.Channel) error {
			return ch.ExchangeDeclarePassive(ex, "direct", false, false, false, false, nil)
		}); err != nil {
			return err
		}
	}
	return nil
}
