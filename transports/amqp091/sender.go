package amqp091

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Sender publishes to an exchange with publisher confirms. It implements
// ports.BatchSender and ports.Closer.
//
// Send returns once the broker confirmed the message (nil), refused it
// (transient BROKER_BUSY), returned it as unroutable (permanent NOT_FOUND,
// with mandatory), or the channel closed first (transient CONNECTION_LOST;
// FORBIDDEN or NOT_FOUND, permanent, when the broker closed it for access
// or a missing exchange). Many publishes share the channel while their
// confirms are outstanding.
type Sender struct {
	cfg       SenderConfig
	mandatory bool
	mode      uint8
	o         options
	log       *slog.Logger
	m         senderMetrics
	pub       publisher
	slots     chan struct{} // MaxOutstanding publishes awaiting confirms
	tables    sync.Pool     // of amqp.Table, header tables between publishes
	closed    atomic.Bool
}

var (
	_ ports.BatchSender = (*Sender)(nil)
	_ ports.Closer      = (*Sender)(nil)
)

// NewSender checks cfg and builds a sender on sess. The publish channel is
// opened on the first send (and again after it is lost).
func NewSender(sess *Session, cfg SenderConfig, opts ...Option) (*Sender, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	o := buildOptions("amqp091", opts)
	s := &Sender{
		cfg: cfg, mandatory: *cfg.Mandatory, mode: amqp.Persistent, o: o,
		log:   o.logger.With("sender", o.name),
		m:     newSenderMetrics(o.meter, o.name),
		pub:   publisher{sess: sess},
		slots: make(chan struct{}, cfg.MaxOutstanding),
	}
	s.tables.New = func() any { return make(amqp.Table, 8) }
	if cfg.DeliveryMode == Transient {
		s.mode = amqp.Transient
	}
	return s, nil
}

// routingKey is the dispatch address, else the configured key.
func (s *Sender) routingKey(msg ports.OutboundMessage) string {
	if msg.Address != "" {
		return msg.Address
	}
	return s.cfg.RoutingKey
}

// Send publishes one message and waits for its confirmation.
func (s *Sender) Send(ctx context.Context, msg ports.OutboundMessage) error {
	if s.closed.Load() {
		return errClosed("amqp091 sender " + s.o.name)
	}
	if err := ctxErr(ctx, "send"); err != nil {
		return err
	}
	err := s.acquireSlot(ctx)
	if err == nil {
		var p *pendingPub
		if p, err = s.write(ctx, msg); err == nil {
			err = p.wait(ctx)
			<-s.slots
		}
	}
	s.m.record(err)
	return err
}

// acquireSlot waits for one of the MaxOutstanding publish slots.
func (s *Sender) acquireSlot(ctx context.Context) error {
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return classify(ctx.Err(), "wait for a publish slot")
	}
}

// trySlot takes a publish slot if one is free.
func (s *Sender) trySlot() bool {
	select {
	case s.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// write publishes msg under a slot the caller holds; the slot is released
// by the caller once the outcome is known, or here on failure.
func (s *Sender) write(ctx context.Context, msg ports.OutboundMessage) (*pendingPub, error) {
	if msg.Envelope == nil {
		<-s.slots
		return nil, fault.ErrInvalidPayload.WithMessage("outbound message without an envelope")
	}
	// The client library encodes the headers during the publish call and
	// keeps no reference, so the table is reused for the next message.
	h := s.tables.Get().(amqp.Table)
	defer func() {
		clear(h)
		s.tables.Put(h)
	}()
	pub := toPublishing(msg.Envelope, s.mode, s.cfg.AppID, s.cfg.MinimalHeaders, time.Now(), h)
	for attempt := 1; ; attempt++ {
		c, err := s.pub.get(ctx, "amqp091 sender "+s.o.name)
		if err == nil {
			// The wait for a reconnect may end together with ctx: a
			// message whose delivery was abandoned meanwhile (its source
			// channel died) must not be published.
			err = ctxErr(ctx, "send")
		}
		if err != nil {
			<-s.slots
			return nil, err
		}
		p, err := c.publish(s.cfg.Exchange, s.routingKey(msg), s.mandatory, &pub)
		if err == nil {
			return p, nil
		}
		// A channel found closed took nothing: publish again on a new one.
		if !c.ch.IsClosed() || attempt == 3 || ctx.Err() != nil {
			<-s.slots
			return nil, err
		}
	}
}

// SendBatch publishes the messages before waiting for their
// confirmations, then waits for all of them. Results are index-aligned; a
// message that could not be published or was refused fails alone. The
// top-level error is only for a closed sender.
//
// A batch larger than the free publish slots waits for its own
// outstanding confirms before it blocks on a slot, so batches never hold
// slots while waiting for each other's.
func (s *Sender) SendBatch(ctx context.Context, msgs []ports.OutboundMessage) ([]ports.BatchResult, error) {
	if s.closed.Load() {
		return nil, errClosed("amqp091 sender " + s.o.name)
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	results := make([]ports.BatchResult, len(msgs))
	pending := make([]*pendingPub, len(msgs))
	var waiting []int // indexes with a publish awaiting its confirm, in order
	settle := func() {
		for _, i := range waiting {
			results[i].Err = pending[i].wait(ctx)
			<-s.slots
			s.m.record(results[i].Err)
		}
		waiting = waiting[:0]
	}
	for i, msg := range msgs {
		results[i].Index = i
		err := ctxErr(ctx, "send")
		if err == nil && !s.trySlot() {
			settle()
			err = s.acquireSlot(ctx)
		}
		if err == nil {
			pending[i], err = s.write(ctx, msg)
		}
		if err != nil {
			results[i].Err = err
			s.m.record(err)
			continue
		}
		waiting = append(waiting, i)
	}
	settle()
	return results, nil
}

// Close refuses further sends and closes the publish channel; publishes
// still waiting for a confirmation fail with a transient error. The
// session stays open.
func (s *Sender) Close(ctx context.Context) error {
	s.closed.Store(true)
	s.pub.close(ctx)
	return nil
}
