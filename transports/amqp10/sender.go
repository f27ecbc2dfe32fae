package amqp10

import (
	"context"
	"log/slog"
	"sync"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Sender sends to AMQP 1.0 addresses, one link (on an AMQP session of
// its own) per target address. Deliveries are sent unsettled and many may
// be in flight on a link at once; each Send waits for its own outcome.
type Sender struct {
	sess    *Session
	cfg     SenderConfig
	durable bool
	log     *slog.Logger
	m       senderMetrics

	mu     sync.Mutex
	links  map[string]*senderLink
	clock  uint64
	closed bool
	// closing counts the AMQP sessions being ended in the background
	// (a dropped or failed link); Close waits for them.
	closing sync.WaitGroup
}

type senderLink struct {
	as   *amqp.Session
	conn *amqp.Conn
	l    *amqp.Sender
	used uint64
}

var (
	_ ports.BatchSender = (*Sender)(nil)
	_ ports.Closer      = (*Sender)(nil)
)

// NewSender validates cfg (after WithDefaults) and returns a Sender on
// sess. Links are attached on first use.
func NewSender(sess *Session, cfg SenderConfig, opts ...Option) (*Sender, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := buildOptions("amqp10", opts)
	return &Sender{sess: sess, cfg: cfg, durable: *cfg.Durable, log: o.logger.With("sender", o.name),
		m:     newSenderMetrics(o.meter, o.name),
		links: map[string]*senderLink{}}, nil
}

// Send transmits one message and waits for the peer's outcome.
func (s *Sender) Send(ctx context.Context, msg ports.OutboundMessage) error {
	r, err := s.start(ctx, msg)
	if err != nil {
		s.m.record(nil, err)
		return err
	}
	return s.wait(ctx, r)
}

// SendBatch sends every message before waiting for any outcome, so the
// whole batch is in flight at once. Results are index-aligned.
func (s *Sender) SendBatch(ctx context.Context, msgs []ports.OutboundMessage) ([]ports.BatchResult, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, fault.ErrUnavailable.WithMessage("amqp10: sender closed")
	}
	results := make([]ports.BatchResult, len(msgs))
	pending := make([]*pendingSend, len(msgs))
	for i, m := range msgs {
		results[i].Index = i
		pending[i], results[i].Err = s.start(ctx, m)
		if results[i].Err != nil {
			s.m.record(nil, results[i].Err)
		}
	}
	for i, p := range pending {
		if p != nil {
			results[i].Err = s.wait(ctx, p)
		}
	}
	return results, nil
}

type pendingSend struct {
	addr    string
	link    *amqp.Sender
	receipt amqp.SendReceipt
}

// start transfers msg without waiting for its outcome.
func (s *Sender) start(ctx context.Context, msg ports.OutboundMessage) (*pendingSend, error) {
	if err := ctx.Err(); err != nil {
		return nil, fault.ErrTimeout.WithMessage("amqp10: send").Wrap(err)
	}
	addr := msg.Address
	if addr == "" {
		addr = s.cfg.Address
	}
	if addr == "" {
		return nil, fault.ErrInvalidTopic.WithMessage("amqp10: no address given and no default address configured")
	}
	if msg.Envelope == nil {
		return nil, fault.ErrInvalidPayload.WithMessage("amqp10: nil envelope")
	}
	link, err := s.link(ctx, addr)
	if err != nil {
		return nil, err
	}
	r, err := link.SendWithReceipt(ctx, toMessage(msg.Envelope, s.durable, time.Now()), nil)
	if err != nil {
		s.forget(addr, link)
		return nil, linkError(ctx, "send", err)
	}
	return &pendingSend{addr: addr, link: link, receipt: r}, nil
}

// wait waits for the outcome of p.
func (s *Sender) wait(ctx context.Context, p *pendingSend) error {
	state, err := p.receipt.Wait(ctx)
	if err != nil {
		s.m.record(nil, err)
		if ctx.Err() == nil {
			s.forget(p.addr, p.link)
		}
		return linkError(ctx, "waiting for the outcome", err)
	}
	err = outcomeError(state)
	s.m.record(state, err)
	return err
}

// link returns the open link to addr, attaching it when needed. Every
// link has an AMQP session of its own: a peer that refuses an attach may
// end the session with it (RabbitMQ does), which must not fail the
// deliveries in flight to other addresses, and ending a session is the
// bounded way to close a link on peers that never answer a detach.
func (s *Sender) link(ctx context.Context, addr string) (*amqp.Sender, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fault.ErrUnavailable.WithMessage("amqp10: sender closed")
	}
	s.clock++
	if sl, ok := s.links[addr]; ok {
		select {
		case <-sl.conn.Done():
			s.dropLocked(addr)
		default:
			sl.used = s.clock
			return sl.l, nil
		}
	}
	as, conn, err := s.sess.openSession(ctx)
	if err != nil {
		return nil, err
	}
	l, err := as.NewSender(ctx, addr, nil)
	if err != nil {
		s.closing.Go(func() { s.sess.closeSession(as) })
		return nil, linkError(ctx, "attach to "+addr, err)
	}
	if len(s.links) >= s.cfg.MaxLinks {
		s.evictLocked()
	}
	s.links[addr] = &senderLink{as: as, conn: conn, l: l, used: s.clock}
	return l, nil
}

// evictLocked closes the least recently used link.
func (s *Sender) evictLocked() {
	var oldest string
	var min uint64
	for a, sl := range s.links {
		if oldest == "" || sl.used < min {
			oldest, min = a, sl.used
		}
	}
	s.dropLocked(oldest)
}

// dropLocked forgets the link to addr and ends its AMQP session in the
// background, within the session's close timeout.
func (s *Sender) dropLocked(addr string) {
	sl, ok := s.links[addr]
	if !ok {
		return
	}
	delete(s.links, addr)
	s.closing.Go(func() { s.sess.closeSession(sl.as) })
}

// forget drops a failed link so that the next send attaches a new one.
func (s *Sender) forget(addr string, l *amqp.Sender) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sl, ok := s.links[addr]; ok && sl.l == l {
		s.dropLocked(addr)
	}
}

// Close ends the sender's AMQP sessions, each within the session's close
// timeout; later sends fail with UNAVAILABLE.
func (s *Sender) Close(context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	links := s.links
	s.links = map[string]*senderLink{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, sl := range links {
		wg.Go(func() { s.sess.closeSession(sl.as) })
	}
	wg.Wait()
	s.closing.Wait()
	return nil
}
