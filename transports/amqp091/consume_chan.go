package amqp091

import (
	"context"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// consumeChan is one consume channel with the deliveries it handed out.
// After Run's consumption ended (detach), it closes once the route has let
// go of the last of them (settled, or given up on), or when the linger
// runs out.
//
// life ends when the channel closes, whoever closed it: the broker, a lost
// connection, or the receiver. Deliveries offer it to the runtime as their
// abandon context, so work on a message the broker has already taken back
// stops before it reaches a target.
type consumeChan struct {
	r     *Receiver
	ch    *amqp.Channel
	tag   string
	acker *acker

	life     context.Context
	kill     context.CancelCauseFunc
	stopping chan struct{} // closed by detach: held requeues go back at once

	mu       sync.Mutex
	inflight int
	detached bool
	closed   bool // closed by the receiver (closeNow)
	linger   *time.Timer
}

// newConsumeChan wraps ch and starts the goroutine that follows its
// closing; that goroutine ends when the channel closes, which closeNow
// guarantees.
func newConsumeChan(r *Receiver, ch *amqp.Channel, tag string) *consumeChan {
	life, kill := context.WithCancelCause(context.Background())
	c := &consumeChan{r: r, ch: ch, tag: tag, acker: newAcker(ch, r.m.ackFrames, r.ackHold),
		life: life, kill: kill, stopping: make(chan struct{})}
	go c.watch(ch.NotifyClose(make(chan *amqp.Error, 1)))
	return c
}

// watch waits for the channel to close and then ends its life. A channel
// that the broker or a lost connection closed while deliveries were still
// in the route is reported once, here, rather than once per delivery.
func (c *consumeChan) watch(closes <-chan *amqp.Error) {
	e := <-closes // an error, or the channel closed without one
	var cause error
	if e != nil {
		cause = e
	}
	c.kill(errChannelGone(cause))
	c.mu.Lock()
	ours, n := c.closed, c.inflight
	c.closed = true
	if c.linger != nil {
		c.linger.Stop()
	}
	c.mu.Unlock()
	if ours {
		return
	}
	c.acker.stop()
	c.r.unregister(c)
	if n > 0 {
		c.r.log.Warn("amqp091 consume channel lost; the broker redelivers its unsettled messages, and the bridge stops working on them",
			"in_flight", n, "err", cause)
	}
}

func (c *consumeChan) begin() {
	c.mu.Lock()
	c.inflight++
	c.mu.Unlock()
}

// end records that the route let go of one delivery.
func (c *consumeChan) end() {
	c.mu.Lock()
	c.inflight--
	last := c.detached && c.inflight == 0
	c.mu.Unlock()
	if last {
		c.closeNow()
	}
}

// detach cancels the consumer and closes the channel now, or once the
// deliveries in flight are let go of (at most the linger later).
//
// The cancel does not wait for the broker's answer: a broker that went
// silent (a network partition) would keep Run from returning until the
// heartbeat gave up on the connection. Deliveries the broker sends before
// it sees the cancel are not handed to the route; they stay unacknowledged
// and are requeued when the channel closes.
func (c *consumeChan) detach() {
	_ = c.ch.Cancel(c.tag, true)
	c.mu.Lock()
	if !c.detached {
		c.detached = true
		close(c.stopping)
	}
	idle := c.inflight == 0
	if !idle && !c.closed {
		c.linger = time.AfterFunc(c.r.linger(), c.closeNow)
	}
	c.mu.Unlock()
	if idle {
		c.closeNow()
	}
}

// closeNow sends the held acks and closes the channel, once. Closing
// waits for the broker's answer, so it runs on a goroutine the receiver
// waits for in Close: whoever calls closeNow (a route worker that settled
// the last delivery, the linger timer) never waits on the network.
func (c *consumeChan) closeNow() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	if c.linger != nil {
		c.linger.Stop()
	}
	c.mu.Unlock()
	c.kill(errChannelGone(nil))
	c.acker.flushHeld()
	c.acker.stop()
	c.r.closing.Go(func() { _ = c.ch.Close() })
	c.r.unregister(c)
}

// bind returns a context that also ends when the channel closes, with
// errChannelGone as its cause.
func (c *consumeChan) bind(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(c.life, func() { cancel(context.Cause(c.life)) })
	return ctx, func() {
		stop()
		cancel(nil)
	}
}
