package mqtt

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eclipse/paho.golang/paho"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// maxBatchParallel bounds the publishes one SendBatch has in flight; the
// broker's Receive Maximum bounds them further.
const maxBatchParallel = 256

// Sender publishes messages on a Session. It implements
// ports.BatchSender and ports.Closer.
//
// The topic is the dispatch address, or DefaultTopic when the address is
// empty; the subject travels in the gobridge.subject user property and is
// never a topic. With QoS 1/2 a send returns once the broker acknowledged
// the message (PUBACK, PUBCOMP); concurrent sends are in flight together,
// up to the broker's Receive Maximum (further sends wait for a slot).
type Sender struct {
	s      *Session
	cfg    SenderConfig
	qos    byte
	o      options
	m      senderMetrics
	closed atomic.Bool
}

// NewSender checks cfg and builds a sender on s. It does not connect: the
// session starts with a receiver's Run, an explicit Start, or else the
// first Send (which then waits for the first connection attempt).
func NewSender(s *Session, cfg SenderConfig, opts ...Option) (*Sender, error) {
	if s == nil {
		return nil, fault.ErrInvalidConfig.WithMessage("mqtt sender needs a session")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := buildOptions("mqtt-out", opts)
	return &Sender{s: s, cfg: cfg, qos: byte(cfg.EffectiveQoS()), o: o, m: newSenderMetrics(o.meter, o.name)}, nil
}

var (
	_ ports.BatchSender = (*Sender)(nil)
	_ ports.Closer      = (*Sender)(nil)
)

// Send publishes one message. Errors are classified: no connection,
// timeouts and broker quota are transient; not authorized, an invalid
// topic or an unsupported QoS are permanent; an expired message is
// expired. A QoS 1/2 sender on a broker whose CONNACK grants only QoS 0
// fails with QOS_NOT_SUPPORTED rather than publish without an
// acknowledgement; on a broker that grants QoS 1, QoS 2 is lowered to 1.
func (sn *Sender) Send(ctx context.Context, msg ports.OutboundMessage) error {
	err := sn.send(ctx, msg)
	sn.count(err)
	return err
}

func (sn *Sender) send(ctx context.Context, msg ports.OutboundMessage) error {
	if sn.closed.Load() {
		return fault.ErrUnavailable.WithMessage("mqtt sender is closed")
	}
	if err := ctx.Err(); err != nil {
		return fault.ErrTimeout.WithMessage("mqtt publish not attempted").Wrap(err)
	}
	if v := sn.s.Terminal(); v != nil {
		return fault.ErrUnavailable.WithMessage("mqtt session ended").Wrap(v)
	}
	topic := msg.Address
	if topic == "" {
		topic = sn.cfg.DefaultTopic
	}
	if topic == "" {
		return fault.ErrInvalidConfig.WithMessage("mqtt sender: empty address and no default_topic")
	}
	if err := checkTopicName(topic); err != nil {
		return errInvalidTopic.WithMessage("mqtt topic " + quoteTopic(topic) + ": " + err.Error())
	}
	pub, err := toPublish(msg.Envelope, topic, sn.qos, sn.cfg.Retain, !sn.cfg.NoExpiry, time.Now())
	if err != nil {
		return err
	}
	cm := sn.s.manager()
	if cm == nil {
		// The first send starts the session, for routes that have no MQTT
		// receiver to do it.
		if err := sn.s.Start(ctx); err != nil {
			return err
		}
		if cm = sn.s.manager(); cm == nil {
			// A deferred session between its lease terms.
			return fault.ErrUnavailable.WithMessage("mqtt session not connected: this instance does not hold its lease")
		}
	}
	lim := sn.s.limits() // after Start: the broker's CONNACK sets them
	if pub.QoS > lim.maxQoS {
		if lim.maxQoS == 0 {
			// A QoS 0 publish is never acknowledged: sending it would report
			// a delivery nobody confirmed.
			return fault.ErrQoSNotSupported.WithMessage(fmt.Sprintf(
				"mqtt broker grants at most QoS 0; a QoS %d publish would go unacknowledged", pub.QoS))
		}
		pub.QoS = lim.maxQoS // QoS 2 to 1 keeps the PUBACK; the broker would refuse more
	}
	if lim.maxPacket > 0 && publishSize(pub) > lim.maxPacket {
		return fault.ErrPayloadTooLarge.WithMessage("mqtt publish exceeds the broker's maximum packet size")
	}
	resp, err := cm.Publish(ctx, pub)
	return publishFault(ctx, resp, err)
}

// count records the outcome of one send.
func (sn *Sender) count(err error) {
	if err == nil {
		sn.m.outcome["ok"].Add(1)
		return
	}
	sn.m.outcome[fault.ClassOf(err).String()].Add(1)
}

// SendBatch publishes every message concurrently and returns one result
// per message, in order. It fails as a whole only before publishing
// anything: a closed sender or an ended context.
func (sn *Sender) SendBatch(ctx context.Context, msgs []ports.OutboundMessage) ([]ports.BatchResult, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	if sn.closed.Load() {
		return nil, fault.ErrUnavailable.WithMessage("mqtt sender is closed")
	}
	if err := ctx.Err(); err != nil {
		return nil, fault.ErrTimeout.WithMessage("mqtt batch not attempted").Wrap(err)
	}
	results := make([]ports.BatchResult, len(msgs))
	sem := make(chan struct{}, maxBatchParallel)
	var wg sync.WaitGroup
	for i := range msgs {
		results[i].Index = i
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			results[i].Err = sn.Send(ctx, msgs[i])
		})
	}
	wg.Wait()
	return results, nil
}

// Close makes further sends fail with a transient UNAVAILABLE. The
// session stays open; its owner closes it.
func (sn *Sender) Close(context.Context) error {
	sn.closed.Store(true)
	return nil
}

// publishSize estimates the encoded size of p, for the broker's maximum
// packet size; it errs on the large side by a few bytes.
func publishSize(p *paho.Publish) int {
	n := 2 + len(p.Topic) + 2 + len(p.Payload) + 5 + 5
	if pr := p.Properties; pr != nil {
		n += 3 + len(pr.ContentType) + 3 + len(pr.ResponseTopic) + 3 + len(pr.CorrelationData) + 5
		for _, u := range pr.User {
			n += 5 + len(u.Key) + len(u.Value)
		}
	}
	return n
}

// quoteTopic quotes a topic for an error message, shortened.
func quoteTopic(t string) string {
	if len(t) > 64 {
		t = t[:64] + "…"
	}
	return `"` + t + `"`
}
