package amqp091

import (
	"context"
	"errors"
	"sync"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// confirmBuffer is the size of the confirmation channel the client
// library fills; it must be drained continuously, or the connection's
// reader stalls.
const confirmBuffer = 4096

// confirmChannel is one channel in confirm mode. Publishes are numbered in
// the order they are written; one tracker goroutine matches the broker's
// confirmations and returns to them. Returns and confirmations are read in
// that single goroutine from an unbuffered return channel, so the return
// of a message is always seen before its confirmation (the broker sends
// them in that order and the library hands them over one by one).
type confirmChannel struct {
	ch *amqp.Channel

	pubMu sync.Mutex // makes sequence numbers follow write order

	mu      sync.Mutex
	pending map[uint64]*pendingPub
	dead    error         // set once the channel closed
	done    chan struct{} // closed when the tracker returned
}

// pendingPub is one publish waiting for its confirmation.
type pendingPub struct {
	tag               uint64
	id, exchange, key string
	returned          *amqp.Return
	res               chan error // buffered: the tracker never blocks
}

var errReturned = fault.ErrNotFound.WithMessage("the broker returned the message: no queue is bound for its routing key")

func isReturned(err error) bool {
	return errors.Is(err, errReturned) && fault.CodeOf(err) == fault.CodeNotFound
}

var errNacked = fault.ErrBrokerBusy.WithMessage("the broker refused the message (basic.nack)")

func isNacked(err error) bool {
	be, ok := fault.As(err)
	return ok && be.Code() == fault.CodeBrokerBusy && be.Message() == errNacked.Message()
}

// openConfirmChannel opens a channel on conn, puts it in confirm mode and
// starts its tracker, which ends when the channel closes.
func openConfirmChannel(conn *amqp.Connection) (*confirmChannel, error) {
	ch, err := conn.Channel()
	if err != nil {
		return nil, classify(err, "open publish channel")
	}
	if err := ch.Confirm(false); err != nil {
		_ = ch.Close()
		return nil, classify(err, "enable publisher confirms")
	}
	c := &confirmChannel{ch: ch, pending: make(map[uint64]*pendingPub), done: make(chan struct{})}
	closes := ch.NotifyClose(make(chan *amqp.Error, 1))
	returns := ch.NotifyReturn(make(chan amqp.Return))
	confirms := ch.NotifyPublish(make(chan amqp.Confirmation, confirmBuffer))
	go c.track(confirms, returns, closes)
	return c, nil
}

func (c *confirmChannel) track(confirms <-chan amqp.Confirmation, returns <-chan amqp.Return, closes <-chan *amqp.Error) {
	defer close(c.done)
	for confirms != nil || returns != nil {
		select {
		case r, ok := <-returns:
			if !ok {
				returns = nil
				continue
			}
			c.onReturn(&r)
		case cf, ok := <-confirms:
			if !ok {
				confirms = nil
				continue
			}
			c.onConfirm(cf)
		}
	}
	cerr := <-closes // buffered, and closed by the library after use
	var err error = amqp.ErrClosed
	if cerr != nil {
		err = cerr
	}
	c.fail(classify(err, "publish channel closed"))
}

func (c *confirmChannel) onConfirm(cf amqp.Confirmation) {
	c.mu.Lock()
	p := c.pending[cf.DeliveryTag]
	delete(c.pending, cf.DeliveryTag)
	c.mu.Unlock()
	if p == nil {
		return // its publish failed and was withdrawn
	}
	switch {
	case !cf.Ack:
		p.res <- errNacked
	case p.returned != nil:
		p.res <- errReturned.With("exchange", p.exchange).With("routing_key", p.key).
			With("reply", p.returned.ReplyText)
	default:
		p.res <- nil
	}
}

// onReturn marks the oldest unconfirmed publish with the returned
// message's ID, exchange and routing key. Two such publishes are the same
// message sent to the same place, so either choice is right.
func (c *confirmChannel) onReturn(r *amqp.Return) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var best *pendingPub
	for _, p := range c.pending {
		if p.returned == nil && p.id == r.MessageId && p.exchange == r.Exchange && p.key == r.RoutingKey &&
			(best == nil || p.tag < best.tag) {
			best = p
		}
	}
	if best != nil {
		best.returned = r
	}
}

// fail ends every pending publish with err and refuses new ones.
func (c *confirmChannel) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dead = err
	for tag, p := range c.pending {
		p.res <- err
		delete(c.pending, tag)
	}
}

// alive reports whether the channel still takes publishes.
func (c *confirmChannel) alive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead == nil && !c.ch.IsClosed()
}

// publish writes msg and returns the handle to wait on for its
// confirmation.
func (c *confirmChannel) publish(exchange, key string, mandatory bool, msg *amqp.Publishing) (*pendingPub, error) {
	p := &pendingPub{id: msg.MessageId, exchange: exchange, key: key, res: make(chan error, 1)}
	c.pubMu.Lock()
	defer c.pubMu.Unlock()
	p.tag = c.ch.GetNextPublishSeqNo()
	c.mu.Lock()
	if c.dead != nil {
		err := c.dead
		c.mu.Unlock()
		return nil, err
	}
	c.pending[p.tag] = p
	c.mu.Unlock()
	if _, err := c.ch.PublishWithDeferredConfirm(exchange, key, mandatory, false, *msg); err != nil {
		c.mu.Lock()
		delete(c.pending, p.tag)
		c.mu.Unlock()
		return nil, classify(err, "publish")
	}
	return p, nil
}

// wait returns the publish's outcome, or a transient error when ctx ends
// first (the message may still arrive: at-least-once).
func (p *pendingPub) wait(ctx context.Context) error {
	select {
	case err := <-p.res:
		return err
	case <-ctx.Done():
		return classify(ctx.Err(), "wait for publisher confirm")
	}
}

// close closes the channel and waits for the tracker within ctx.
func (c *confirmChannel) close(ctx context.Context) {
	_ = c.ch.Close()
	select {
	case <-c.done:
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
