package mqtt

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eclipse/paho.golang/paho"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Receiver hands the messages of its subscriptions to a route. It
// implements ports.Receiver, ports.CapabilityReporter and ports.Closer.
//
// A QoS 1/2 message is acknowledged to the broker only when the route
// settles its delivery (Ack), in arrival order as MQTT requires: a message
// that is still being handled delays the acknowledgements of later ones,
// not their handling. Retry holds the message in the process and hands it
// to the route again after the delay; the number of such redeliveries is
// the delivery's redelivery count. A message never settled (crash,
// shutdown) stays unacknowledged and the broker sends it again when the
// session resumes.
type Receiver struct {
	s       *Session
	cfg     ReceiverConfig
	o       options
	m       receiverMetrics
	subs    []subscription
	filters []string // the topic filters without $share prefixes
	q       *queue

	mu     sync.Mutex
	holds  map[*time.Timer]*inbound // pending in-process redeliveries
	closed atomic.Bool              // set under mu; read without it when routing
}

// NewReceiver checks cfg and attaches a receiver to s: its subscriptions
// join the session's desired set and matching messages are queued for it
// from then on. Attach receivers before the session starts, or messages
// a resumed session delivers first find no receiver (they are then
// acknowledged and dropped, and counted).
func NewReceiver(s *Session, cfg ReceiverConfig, opts ...Option) (*Receiver, error) {
	if s == nil {
		return nil, fault.ErrInvalidConfig.WithMessage("mqtt receiver needs a session")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	o := buildOptions("mqtt-in", opts)
	r := &Receiver{s: s, cfg: cfg, o: o, m: newReceiverMetrics(o.meter, o.name),
		q: newQueue(cfg.QoS0Buffer), holds: map[*time.Timer]*inbound{}}
	for _, sc := range cfg.Subscriptions {
		r.subs = append(r.subs, fromConfig(sc))
		r.filters = append(r.filters, filterOf(sc.Topic))
	}
	s.subs.attach(r)
	s.adopt(r)
	select {
	case s.kick <- struct{}{}:
	default:
	}
	return r, nil
}

var (
	_ ports.Receiver           = (*Receiver)(nil)
	_ ports.CapabilityReporter = (*Receiver)(nil)
	_ ports.Closer             = (*Receiver)(nil)
)

// Capabilities reports Retry (the in-process hold) and, when the session
// resumes and every subscription is QoS 1 or 2, RedeliversUnsettled.
func (r *Receiver) Capabilities() ports.ReceiverCapabilities {
	zero, _ := r.cfg.hasQoS()
	return ports.ReceiverCapabilities{Retry: true, RedeliversUnsettled: r.s.cfg.Resumes() && !zero}
}

// Run starts the session if needed and hands queued messages to emit, one
// at a time (emit blocks while the route is at its in-flight limit), until
// ctx ends (nil), an ingress violation ends the session (the violation) or
// the session is closed (a transient UNAVAILABLE error).
// A message emit refuses is kept and handed to the next Run first.
func (r *Receiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	if err := r.s.Start(ctx); err != nil {
		if v := r.s.Terminal(); v != nil {
			return v
		}
		if ctx.Err() != nil {
			return nil
		}
		if !fault.IsRecoverable(err) {
			return err
		}
		r.o.logger.Warn("mqtt receiver: first connection attempt failed; the session keeps trying", "receiver", r.o.name, "error", err)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.s.Terminated():
			return r.s.Terminal()
		case <-r.s.closedCh:
			return fault.ErrUnavailable.WithMessage("mqtt session closed while the receiver ran")
		case <-r.q.ready:
		}
		for m := r.q.pop(); m != nil; m = r.q.pop() {
			if r.s.acks.stale(m.tok) {
				continue // the resumed session sends it again
			}
			d := &delivery{r: r, m: m, env: m.envelope()}
			if err := emit(ctx, d); err != nil {
				r.q.pushFront(m)
				return nil
			}
			r.m.received.Add(1)
		}
	}
}

// enqueue is called from the session's publish callback.
func (r *Receiver) enqueue(p *paho.Publish, tok *ackToken) {
	m := &inbound{pub: p, tok: tok, received: time.Now()}
	m.id = messaging.NewID()
	if !r.q.push(m) {
		r.m.qos0Dropped.Add(1)
	}
	r.orphanIfClosed()
}

// orphanIfClosed hands what a closed receiver's queue holds to the
// session. Called after every push: Close marks the receiver closed before
// it empties the queue, so a message pushed concurrently is seen by one of
// the two.
func (r *Receiver) orphanIfClosed() {
	if r.closed.Load() {
		r.s.rehome(r.q.takeAll()...)
	}
}

// hold schedules m's in-process redelivery after delay. On a closed
// receiver the message goes to the session at once (see Close).
func (r *Receiver) hold(m *inbound, delay time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed.Load() {
		m.attempt++
		r.s.rehome(m)
		return nil
	}
	var t *time.Timer
	t = time.AfterFunc(max(delay, 0), func() {
		r.mu.Lock()
		delete(r.holds, t)
		m.attempt++
		closed := r.closed.Load()
		if !closed {
			r.q.pushFront(m)
		}
		r.mu.Unlock()
		if closed {
			r.s.rehome(m)
		}
	})
	r.holds[t] = m
	r.m.retried.Add(1)
	return nil
}

// requeue puts back a message the route left unsettled, to be handed out
// first, as a redelivery.
func (r *Receiver) requeue(m *inbound) {
	m.attempt++
	r.q.pushFront(m)
	r.orphanIfClosed()
}

// Close stops the receiver after its route stopped; it does not close the
// session. What it still has (queued messages, messages held for a retry,
// and later any delivery its route leaves unsettled) is handed to the
// open receiver of the session whose subscription matches, typically its
// replacement after a reload; one attached within two seconds takes it
// over, as it takes new messages of its topics. After that the closed
// receiver is detached (its subscriptions are dropped unless another
// receiver has them) and QoS 1/2 messages still without a receiver are
// released: the session reconnects, so that a resumed session gets them
// again from the broker, and no message of a closed receiver holds back
// the acknowledgements of later ones for good.
func (r *Receiver) Close(context.Context) error {
	r.mu.Lock()
	if r.closed.Swap(true) {
		r.mu.Unlock()
		return nil
	}
	var held []*inbound
	for t, m := range r.holds {
		if t.Stop() {
			m.attempt++
			held = append(held, m)
		}
	}
	clear(r.holds)
	queued := r.q.takeAll()
	r.mu.Unlock()
	r.s.receiverClosed(append(held, queued...))
	return nil
}
