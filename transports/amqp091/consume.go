package amqp091

import (
	"context"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// consume opens a channel on l, sets the prefetch, declares the retry
// topology when delayed retry is on, and emits deliveries until ctx ends,
// emit refuses one, or the channel closes. progressed is true when at
// least one delivery arrived.
func (r *Receiver) consume(ctx context.Context, l *link, emit ports.EmitFunc) (progressed bool, err error) {
	ch, err := l.conn.Channel()
	if err != nil {
		return false, classify(err, "open consume channel")
	}
	closes := ch.NotifyClose(make(chan *amqp.Error, 1))
	if err := ch.Qos(r.prefetch, 0, false); err != nil {
		_ = ch.Close()
		return false, classify(err, "set prefetch")
	}
	if r.delays != nil {
		if err := declareRetry(ch, r.cfg); err != nil {
			_ = ch.Close()
			return false, err
		}
	}
	args, _ := toTable(r.cfg.ConsumerArguments) // validated
	tag := r.cfg.ConsumerTag
	if tag == "" {
		tag = "gobridge-" + r.o.name + "-" + randomSuffix()
	}
	deliveries, err := ch.Consume(r.cfg.Queue, tag, false, r.cfg.Exclusive, false, false, args)
	if err != nil {
		_ = ch.Close()
		return false, classify(err, "consume "+r.cfg.Queue)
	}
	cc := &consumeChan{r: r, ch: ch, tag: tag, acker: newAcker(ch, r.m.ackFrames, r.ackHold)}
	r.register(cc)
	defer cc.detach()
	for {
		select {
		case d, ok := <-deliveries:
			if !ok {
				return progressed, closeReason(closes)
			}
			progressed = true
			r.m.received.Add(1)
			cc.acker.track(d.DeliveryTag)
			cc.begin()
			del := newDelivery(cc, &d)
			if err := emit(ctx, del); err != nil {
				// The route did not take it: back to the queue at once.
				r.m.requeued.Add(1)
				_ = del.requeue()
				return progressed, nil
			}
		case <-ctx.Done():
			return progressed, nil
		}
	}
}

// closeReason returns why a channel closed, once it has.
func closeReason(closes <-chan *amqp.Error) error {
	select {
	case e, ok := <-closes:
		if ok && e != nil {
			return classify(e, "consume channel closed")
		}
	default:
	}
	return classify(amqp.ErrClosed, "consumer cancelled or channel closed")
}

// consumeChan is one consume channel with the deliveries it handed out.
// After Run's consumption ended (detach), it closes once the last of them
// is settled, or when Linger runs out.
type consumeChan struct {
	r     *Receiver
	ch    *amqp.Channel
	tag   string
	acker *acker

	mu       sync.Mutex
	inflight int
	detached bool
	closed   bool
	linger   *time.Timer
}

func (c *consumeChan) begin() {
	c.mu.Lock()
	c.inflight++
	c.mu.Unlock()
}

// end records that one delivery was settled.
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
// deliveries in flight are settled (at most Linger later).
func (c *consumeChan) detach() {
	_ = c.ch.Cancel(c.tag, false)
	c.mu.Lock()
	c.detached = true
	idle := c.inflight == 0
	if !idle && !c.closed {
		c.linger = time.AfterFunc(c.r.cfg.Linger, c.closeNow)
	}
	c.mu.Unlock()
	if idle {
		c.closeNow()
	}
}

// closeNow sends the held acks and closes the channel, once.
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
	c.acker.flushHeld()
	c.acker.stop()
	_ = c.ch.Close()
	c.r.unregister(c)
}
