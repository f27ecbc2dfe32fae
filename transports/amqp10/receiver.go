package amqp10

import (
	"context"
	"log/slog"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// Receiver attaches a receiving link to one address and hands each
// delivery to the route unsettled. After a lost link or connection it
// attaches again, with the session's backoff.
type Receiver struct {
	sess   *Session
	cfg    ReceiverConfig
	credit int32
	log    *slog.Logger
	rand   func() float64
	m      receiverMetrics
}

var (
	_ ports.Receiver           = (*Receiver)(nil)
	_ ports.CapabilityReporter = (*Receiver)(nil)
)

// NewReceiver validates cfg (after WithDefaults) and returns a Receiver
// on sess. The link credit is cfg.Credit, else the route's max_in_flight
// (WithMaxInFlight), else DefaultCredit.
func NewReceiver(sess *Session, cfg ReceiverConfig, opts ...Option) (*Receiver, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := buildOptions("amqp10", opts)
	credit := cfg.Credit
	if credit == 0 {
		credit = o.maxInFlight
	}
	if credit <= 0 {
		credit = DefaultCredit
	}
	return &Receiver{sess: sess, cfg: cfg, credit: int32(credit), rand: o.rand, m: newReceiverMetrics(o.meter, o.name),
		log: o.logger.With("receiver", o.name, "address", cfg.Address)}, nil
}

// Capabilities reports Retry unless it is off; a delivery left unsettled
// goes back to the peer when the link ends.
func (r *Receiver) Capabilities() ports.ReceiverCapabilities {
	return ports.ReceiverCapabilities{Retry: r.cfg.Retry != RetryOff, RedeliversUnsettled: true}
}

// Run receives until ctx ends, re-attaching after failures.
func (r *Receiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	for attempt := 0; ; attempt++ {
		received, err := r.runLink(ctx, emit)
		if ctx.Err() != nil {
			return nil
		}
		if received {
			attempt = 0
		}
		delay := r.sess.cfg.Reconnect.delay(attempt, r.rand())
		r.log.Warn("amqp10: receiving link lost; attaching again", "err", err, "in", delay)
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil
		}
	}
}

// runLink attaches one link and receives on it until it fails or ctx
// ends. It reports whether anything was received.
func (r *Receiver) runLink(ctx context.Context, emit ports.EmitFunc) (bool, error) {
	as, _, err := r.sess.openSession(ctx)
	if err != nil {
		return false, err
	}
	// Credit is managed by receiverLink rather than by go-amqp, whose
	// automatic credit stalled against RabbitMQ 3.10.
	rcv, err := as.NewReceiver(ctx, r.cfg.Address, &amqp.ReceiverOptions{Credit: -1})
	var link *receiverLink
	if err == nil {
		link = newReceiverLink(rcv)
		err = link.grant(uint32(r.credit))
	}
	if err != nil {
		r.sess.closeSession(as)
		return false, linkError(ctx, "attach to "+r.cfg.Address, err)
	}
	r.m.attaches.Add(1)
	defer func() {
		// Let the route settle what it holds, then end the session: the
		// peer takes back whatever is still unsettled.
		link.waitIdle(r.cfg.Linger)
		r.sess.closeSession(as)
	}()
	received := false
	for {
		msg, err := rcv.Receive(ctx, nil)
		if err != nil {
			return received, linkError(ctx, "receive", err)
		}
		received = true
		link.received()
		r.m.received.Add(1)
		d := &delivery{link: link, msg: msg, retry: r.cfg.Retry, reject: r.cfg.OnPermanent == PermanentRejected, env: fromMessage(msg, time.Now()), m: &r.m}
		if err := emit(ctx, d); err != nil {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.sess.cfg.CloseTimeout)
			d.release(rctx)
			cancel()
		}
	}
}

// Close releases nothing: a Receiver holds its link only while Run runs.
func (r *Receiver) Close(context.Context) error { return nil }
