package amqp091

import (
	"context"
	"sync"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// returnBuffer is how many returned messages may wait to be claimed; the
// client library gives up on a full listener after a few seconds.
const (
	returnBuffer = 256
	returnsKept  = 1024
)

// confirmChannel is one channel in confirm mode. Each publish waits on the
// deferred confirmation the client library keeps for it; no goroutine of
// ours is involved.
//
// Returns (basic.return, for mandatory publishes no queue took) arrive on
// a buffered channel. The broker sends a message's return before its ack,
// and the library hands both over in that order from its one reader
// goroutine, so once a publish is confirmed its return, if any, is already
// in the channel or in the claimed list. Draining and claiming happen
// under one mutex, which makes the check airtight.
type confirmChannel struct {
	ch      *amqp.Channel
	returns chan amqp.Return
	closes  chan *amqp.Error

	mu       sync.Mutex
	returned []amqp.Return // drained, not yet claimed
	closeErr error
}

// pendingPub is one publish waiting for its confirmation.
type pendingPub struct {
	c                 *confirmChannel
	dc                *amqp.DeferredConfirmation
	mandatory         bool
	id, exchange, key string
}

var errReturned = fault.ErrNotFound.WithMessage("the broker returned the message: no queue is bound for its routing key")

func isReturned(err error) bool { return fault.CodeOf(err) == fault.CodeNotFound }

var errNacked = fault.ErrBrokerBusy.WithMessage("the broker refused the message (basic.nack)")

func isNacked(err error) bool { return fault.CodeOf(err) == fault.CodeBrokerBusy }

// openConfirmChannel opens a channel on conn and puts it in confirm mode.
func openConfirmChannel(conn *amqp.Connection) (*confirmChannel, error) {
	ch, err := conn.Channel()
	if err != nil {
		return nil, classify(err, "open publish channel")
	}
	if err := ch.Confirm(false); err != nil {
		_ = ch.Close()
		return nil, classify(err, "enable publisher confirms")
	}
	c := &confirmChannel{ch: ch}
	c.closes = ch.NotifyClose(make(chan *amqp.Error, 1))
	c.returns = ch.NotifyReturn(make(chan amqp.Return, returnBuffer))
	return c, nil
}

// alive reports whether the channel still takes publishes.
func (c *confirmChannel) alive() bool { return !c.ch.IsClosed() }

// publish writes msg and returns the handle to wait on for its
// confirmation.
func (c *confirmChannel) publish(exchange, key string, mandatory bool, msg *amqp.Publishing) (*pendingPub, error) {
	dc, err := c.ch.PublishWithDeferredConfirm(exchange, key, mandatory, false, *msg)
	if err != nil {
		return nil, classify(err, "publish")
	}
	return &pendingPub{c: c, dc: dc, mandatory: mandatory, id: msg.MessageId, exchange: exchange, key: key}, nil
}

// wait returns the publish's outcome, or a transient error when ctx ends
// first (the message may still arrive: at-least-once).
func (p *pendingPub) wait(ctx context.Context) error {
	select {
	case <-p.dc.Done():
	case <-ctx.Done():
		return classify(ctx.Err(), "wait for publisher confirm")
	}
	switch {
	case p.dc.Acked():
		if p.mandatory && p.c.claimReturn(p.id, p.exchange, p.key) {
			return errReturned.With("exchange", p.exchange).With("routing_key", p.key)
		}
		return nil
	case p.c.ch.IsClosed():
		return p.c.closeError()
	default:
		return errNacked
	}
}

// claimReturn reports whether a return matching the publish arrived, and
// consumes it. Two outstanding publishes with the same message ID, exchange
// and routing key are the same message sent to the same place; either may
// claim its return.
func (c *confirmChannel) claimReturn(id, exchange, key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for drained := false; !drained; {
		select {
		case r, ok := <-c.returns:
			if !ok {
				drained = true
				break
			}
			c.returned = append(c.returned, r)
		default:
			drained = true
		}
	}
	if n := len(c.returned); n > returnsKept {
		c.returned = append(c.returned[:0], c.returned[n-returnsKept:]...) // unclaimed: their senders gave up
	}
	for i, r := range c.returned {
		if r.MessageId == id && r.Exchange == exchange && r.RoutingKey == key {
			c.returned = append(c.returned[:i], c.returned[i+1:]...)
			return true
		}
	}
	return false
}

// closeError classifies why the channel closed: access refused and a
// missing exchange are permanent, anything else transient. The library
// reports the reason before it fails the pending confirmations.
func (c *confirmChannel) closeError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeErr == nil {
		select {
		case e, ok := <-c.closes:
			if ok && e != nil {
				c.closeErr = classify(e, "publish channel closed")
			}
		default:
		}
	}
	if c.closeErr == nil {
		return classify(amqp.ErrClosed, "publish channel closed before the confirm")
	}
	return c.closeErr
}

// close closes the channel; publishes still waiting fail. It waits for
// the broker's answer within ctx; a broker that does not answer (a network
// partition) is left to the heartbeat, which ends the connection and with
// it the goroutine doing the close.
func (c *confirmChannel) close(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.ch.Close()
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// publisher keeps one live confirm channel on a session, opening a new one
// after the previous one or its connection died.
type publisher struct {
	sess   *Session
	mu     sync.Mutex
	cur    *confirmChannel
	closed bool
}

// get returns a live confirm channel, waiting for the session to connect
// within ctx.
func (p *publisher) get(ctx context.Context, what string) (*confirmChannel, error) {
	p.mu.Lock()
	if c := p.cur; c != nil && c.alive() && !p.closed {
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	l, err := p.sess.acquire(ctx)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errClosed(what)
	}
	if c := p.cur; c != nil && c.alive() {
		return c, nil
	}
	c, err := openConfirmChannel(l.conn)
	if err != nil {
		return nil, err
	}
	p.cur = c
	return c, nil
}

// close refuses further use and closes the current channel.
func (p *publisher) close(ctx context.Context) {
	p.mu.Lock()
	p.closed = true
	c := p.cur
	p.cur = nil
	p.mu.Unlock()
	if c != nil {
		c.close(ctx)
	}
}
