package servicebus

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Sender sends envelopes to Service Bus queues and topics in message
// batches. It implements ports.BatchSender and ports.Closer and is safe
// for concurrent use.
type Sender struct {
	client *azservicebus.Client
	// release gives the factory's client back; nil for a caller's client.
	release func(context.Context) error
	cfg     SenderConfig
	o       options
	m       *senderMetrics
	closed  atomic.Bool

	mu       sync.Mutex
	entities map[string]*entitySender
}

// entitySender is the SDK sender of one entity and the batcher that
// coalesces concurrent Sends to it.
type entitySender struct {
	sdk   *azservicebus.Sender
	sends *batcher[*azservicebus.AMQPAnnotatedMessage]
}

var (
	_ ports.BatchSender = (*Sender)(nil)
	_ ports.Closer      = (*Sender)(nil)
	_ ports.Delayer     = (*Sender)(nil)
)

// DelayLimit reports no limit: a message with a NotBefore goes out with
// that scheduled enqueue time, which Service Bus honours however far
// ahead.
func (s *Sender) DelayLimit(string) (time.Duration, error) { return 0, nil }

// NewSender validates cfg and returns a Sender that sends through client.
// Close does not close client.
func NewSender(client *azservicebus.Client, cfg SenderConfig, opts ...Option) (*Sender, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := buildOptions(opts)
	return &Sender{client: client, cfg: cfg, o: o, m: newSenderMetrics(o.meter, o.name), entities: map[string]*entitySender{}}, nil
}

// Send sends one message. Concurrent sends to one entity share
// SendMessageBatch calls: a send waits while others keep arriving (up to
// batch_window), and sends that arrive while a call is under way go
// together in the next. Each gets the outcome of its own message.
func (s *Sender) Send(ctx context.Context, msg ports.OutboundMessage) error {
	if s.closed.Load() {
		return fault.ErrUnavailable.WithMessage("servicebus: sender closed")
	}
	if err := ctx.Err(); err != nil {
		return classify("send", err)
	}
	es, m, err := s.prepare(msg)
	if err != nil {
		s.m.failed.Add(1)
		return err
	}
	return es.sends.do(ctx, m)
}

// SendBatch sends msgs grouped by entity in as few SendMessageBatch calls
// as Service Bus's batch size allows, and returns one result per message
// in input order. A message that cannot be mapped or is too large for a
// batch on its own fails alone.
func (s *Sender) SendBatch(ctx context.Context, msgs []ports.OutboundMessage) ([]ports.BatchResult, error) {
	if s.closed.Load() {
		return nil, fault.ErrUnavailable.WithMessage("servicebus: sender closed")
	}
	if err := ctx.Err(); err != nil {
		return nil, classify("send", err)
	}
	res := make([]ports.BatchResult, len(msgs))
	for i := range res {
		res[i].Index = i
	}
	type queued struct {
		ms  []*azservicebus.AMQPAnnotatedMessage
		idx []int
	}
	byEntity := map[*entitySender]*queued{}
	var order []*entitySender
	for i, msg := range msgs {
		es, m, err := s.prepare(msg)
		if err != nil {
			s.m.failed.Add(1)
			res[i].Err = err
			continue
		}
		q, ok := byEntity[es]
		if !ok {
			q = &queued{}
			byEntity[es] = q
			order = append(order, es)
		}
		q.ms = append(q.ms, m)
		q.idx = append(q.idx, i)
	}
	for _, es := range order {
		q := byEntity[es]
		errs := s.sendAll(ctx, es.sdk, q.ms)
		for j, err := range errs {
			res[q.idx[j]].Err = err
		}
	}
	return res, nil
}

// prepare finds msg's entity and maps it.
func (s *Sender) prepare(msg ports.OutboundMessage) (*entitySender, *azservicebus.AMQPAnnotatedMessage, error) {
	addr := msg.Address
	if addr == "" {
		addr = s.cfg.Entity
	}
	if addr == "" {
		return nil, nil, fault.ErrInvalidTopic.WithMessage("servicebus: no address and no default entity")
	}
	var p problems
	checkEntityName(&p, "address", addr)
	if err := p.err(); err != nil {
		return nil, nil, fault.ErrInvalidTopic.WithMessage("servicebus: " + err.Error())
	}
	m, err := toMessage(msg.Envelope, outbound{sessionHeader: s.cfg.SessionIDHeader, notBefore: msg.NotBefore, now: time.Now(), minimal: s.cfg.MinimalHeaders})
	if err != nil {
		return nil, nil, err
	}
	es, err := s.entity(addr)
	if err != nil {
		return nil, nil, err
	}
	return es, m, nil
}

// entity returns the sender of one queue or topic, creating it once.
func (s *Sender) entity(name string) (*entitySender, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if es, ok := s.entities[name]; ok {
		return es, nil
	}
	sdk, err := s.client.NewSender(name, nil)
	if err != nil {
		return nil, classify("NewSender "+name, err)
	}
	es := &entitySender{sdk: sdk}
	es.sends = newBatcher(s.cfg.batchWindow(), batchGap, batchMost, func(ctx context.Context, items []batchItem[*azservicebus.AMQPAnnotatedMessage]) {
		ms := make([]*azservicebus.AMQPAnnotatedMessage, len(items))
		for i, it := range items {
			ms[i] = it.v
		}
		for i, err := range s.sendAll(ctx, sdk, ms) {
			items[i].done <- err
		}
	})
	s.entities[name] = es
	return es, nil
}

// sendAll sends ms in message batches as large as the link allows and
// returns one error per message. A message that fits no batch on its own
// fails with PAYLOAD_TOO_LARGE; a failed call fails its batch's messages.
func (s *Sender) sendAll(ctx context.Context, sdk *azservicebus.Sender, ms []*azservicebus.AMQPAnnotatedMessage) []error {
	errs := make([]error, len(ms))
	var batch *azservicebus.MessageBatch
	var inBatch []int
	flush := func() {
		if batch == nil || len(inBatch) == 0 {
			return
		}
		s.m.batches.Add(1)
		err := classify("SendMessageBatch", sdk.SendMessageBatch(ctx, batch, nil))
		for _, i := range inBatch {
			errs[i] = err
		}
		if err == nil {
			s.m.sent.Add(float64(len(inBatch)))
		} else {
			s.m.failed.Add(float64(len(inBatch)))
		}
		batch, inBatch = nil, nil
	}
	for i, m := range ms {
		for {
			if batch == nil {
				b, err := sdk.NewMessageBatch(ctx, nil)
				if err != nil {
					err = classify("NewMessageBatch", err)
					for j := i; j < len(ms); j++ {
						errs[j] = err
					}
					s.m.failed.Add(float64(len(ms) - i))
					return errs
				}
				batch = b
			}
			err := batch.AddAMQPAnnotatedMessage(m, nil)
			if err == nil {
				inBatch = append(inBatch, i)
				break
			}
			if errors.Is(err, azservicebus.ErrMessageTooLarge) && len(inBatch) > 0 {
				flush() // a full batch: send it and try again in a new one
				continue
			}
			if errors.Is(err, azservicebus.ErrMessageTooLarge) {
				errs[i] = classify("adding to a batch", err)
			} else {
				// The SDK could not encode it: sending again cannot help.
				errs[i] = fault.ErrInvalidPayload.WithMessage("servicebus: encoding the message").Wrap(err)
			}
			s.m.failed.Add(1)
			break
		}
	}
	flush()
	return errs
}

// Close closes the entity links (and gives back the client when the
// factory provided it); further sends fail with UNAVAILABLE.
func (s *Sender) Close(ctx context.Context) error {
	if s.closed.Swap(true) {
		return nil
	}
	s.mu.Lock()
	ents := s.entities
	s.entities = map[string]*entitySender{}
	s.mu.Unlock()
	var errs []error
	for _, es := range ents {
		if err := es.sdk.Close(ctx); err != nil {
			errs = append(errs, classify("closing a sender", err))
		}
	}
	if s.release != nil {
		if err := s.release(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
