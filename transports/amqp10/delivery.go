package amqp10

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// delivery is one unsettled AMQP 1.0 delivery handed to the route. It is
// disposed once: accepted by Ack, modified or released by Retry, released
// when the route refuses it.
type delivery struct {
	link    *receiverLink
	msg     *amqp.Message
	env     *messaging.Envelope
	retry   RetryMode
	reject  bool // on_permanent: rejected
	m       *receiverMetrics
	settled atomic.Bool
}

var (
	_ ports.Delivery          = (*delivery)(nil)
	_ ports.RedeliveryCounter = (*delivery)(nil)
	_ ports.Rejecter          = (*delivery)(nil)
)

func (d *delivery) Envelope() *messaging.Envelope { return d.env }

// Ack disposes the delivery accepted.
func (d *delivery) Ack(ctx context.Context) error {
	return d.settle(ctx, dispAccepted, func(ctx context.Context) error { return d.link.rcv.AcceptMessage(ctx, d.msg) })
}

// Retry holds the delivery for after, then disposes it modified with
// delivery-failed (or released, as configured).
func (d *delivery) Retry(ctx context.Context, after time.Duration, _ error) error {
	if d.retry == RetryOff {
		return fault.ErrNotSupported.WithMessage("amqp10: retry is off for this receiver")
	}
	if after > 0 {
		t := time.NewTimer(after)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fault.ErrTimeout.WithMessage("amqp10: waiting to retry").Wrap(ctx.Err())
		}
	}
	if d.retry == RetryReleased {
		return d.settle(ctx, dispReleased, func(ctx context.Context) error { return d.link.rcv.ReleaseMessage(ctx, d.msg) })
	}
	return d.settle(ctx, dispModified, func(ctx context.Context) error {
		return d.link.rcv.ModifyMessage(ctx, d.msg, &amqp.ModifyMessageOptions{DeliveryFailed: true})
	})
}

// Reject disposes the delivery rejected when the receiver is configured
// with on_permanent: rejected, so the peer's own dead-lettering takes it;
// otherwise it returns NOT_SUPPORTED and the route uses the bridge's DLQ.
// The error condition names the category (gobridge:<category>) and the
// description carries only the fault code, never the error's text, which
// may quote the payload.
func (d *delivery) Reject(ctx context.Context, category ports.DLQCategory, reason error) error {
	if !d.reject {
		return fault.ErrNotSupported.WithMessage("amqp10: on_permanent is dlq for this receiver")
	}
	// The condition says why to any peer; the info map repeats it under
	// the names Azure Service Bus reads for a dead letter's reason and
	// description, which peers without such a convention ignore.
	cond, code := "gobridge:"+string(category), string(fault.CodeOf(reason))
	e := &amqp.Error{Condition: amqp.ErrCond(cond), Description: code,
		Info: map[string]any{"DeadLetterReason": cond, "DeadLetterErrorDescription": code}}
	return d.settle(ctx, dispRejected, func(ctx context.Context) error { return d.link.rcv.RejectMessage(ctx, d.msg, e) })
}

// Extend is not supported: an AMQP 1.0 delivery has no lease.
func (d *delivery) Extend(context.Context, time.Time) error {
	return fault.ErrNotSupported.WithMessage("amqp10: deliveries have no lease to extend")
}

// RedeliveryCount is the header's delivery-count: how many earlier
// deliveries of the message failed. With retry: released there is no
// count: a peer never counts a release (AMQP 1.0 forbids raising
// delivery-count for one) and may redeliver on the same link with
// first-acquirer still set, so the header cannot tell the bridge's own
// retries from a first delivery; the runtime counts the attempts instead.
func (d *delivery) RedeliveryCount() (int, bool) {
	if d.retry == RetryReleased {
		return 0, false
	}
	return redeliveryCount(d.msg.Header)
}

// redeliveryCount reads a message header. A delivery-count of 0 is only
// trusted together with first-acquirer: RabbitMQ 3.x never raises the
// count and marks redeliveries by clearing first-acquirer alone, so a
// zero count without first-acquirer says "delivered before, how often
// unknown" and is reported as no count.
func redeliveryCount(h *amqp.MessageHeader) (int, bool) {
	switch {
	case h == nil:
		return 0, false
	case h.DeliveryCount > 0:
		return int(h.DeliveryCount), true
	case h.FirstAcquirer:
		return 0, true
	}
	return 0, false
}

// release hands back a delivery the route did not take.
func (d *delivery) release(ctx context.Context) {
	_ = d.settle(ctx, dispReleased, func(ctx context.Context) error { return d.link.rcv.ReleaseMessage(ctx, d.msg) })
}

// settle sends the disposition named outcome (a metric label) once.
func (d *delivery) settle(ctx context.Context, outcome string, dispose func(context.Context) error) error {
	if !d.settled.CompareAndSwap(false, true) {
		return fault.ErrInternal.WithMessage("amqp10: delivery already settled")
	}
	defer d.link.done()
	if err := dispose(ctx); err != nil {
		d.count(dispFailed)
		return linkError(ctx, "disposition "+outcome, err)
	}
	d.count(outcome)
	d.link.settled()
	return nil
}

func (d *delivery) count(outcome string) {
	if d.m != nil {
		d.m.disposed[outcome].Add(1)
	}
}

// receiverLink counts the deliveries of one link that are not settled
// yet, so that a stopping Run can wait for them, and manages the link
// credit: settled deliveries give their credit back, but only once the
// peer has used up what it was granted. A flow frame then carries the
// same link-credit whether the peer reads it as the new total (as AMQP
// 1.0 says) or as an increment (as RabbitMQ 3.10's plugin was seen to),
// so the peer never has more deliveries outstanding than the credit.
type receiverLink struct {
	rcv *amqp.Receiver

	mu      sync.Mutex
	n       int
	idle    chan struct{} // closed while n == 0
	granted uint64        // credit granted since attach
	taken   uint64        // deliveries received since attach
	pending uint32        // settled deliveries whose credit is not yet given back
}

// grant gives the peer k more credit.
func (l *receiverLink) grant(k uint32) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.granted += uint64(k)
	return l.rcv.IssueCredit(k)
}

// received counts a delivery taken from the link.
func (l *receiverLink) received() {
	l.mu.Lock()
	l.taken++
	l.refillLocked()
	if l.n == 0 {
		l.idle = make(chan struct{})
	}
	l.n++
	l.mu.Unlock()
}

// settled gives a settled delivery's credit back, when the peer is out
// of credit.
func (l *receiverLink) settled() {
	l.mu.Lock()
	l.pending++
	l.refillLocked()
	l.mu.Unlock()
}

func (l *receiverLink) refillLocked() {
	if l.taken < l.granted || l.pending == 0 {
		return
	}
	k := l.pending
	l.pending = 0
	l.granted += uint64(k)
	_ = l.rcv.IssueCredit(k)
}

func newReceiverLink(rcv *amqp.Receiver) *receiverLink {
	idle := make(chan struct{})
	close(idle)
	return &receiverLink{rcv: rcv, idle: idle}
}

func (l *receiverLink) done() {
	l.mu.Lock()
	l.n--
	if l.n == 0 {
		close(l.idle)
	}
	l.mu.Unlock()
}

// waitIdle waits until every delivery is settled or d has passed.
func (l *receiverLink) waitIdle(d time.Duration) {
	l.mu.Lock()
	idle := l.idle
	l.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}
