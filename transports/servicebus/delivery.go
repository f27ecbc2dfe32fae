package servicebus

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// settleLink is the part of *azservicebus.Receiver and
// *azservicebus.SessionReceiver a delivery settles through.
type settleLink interface {
	CompleteMessage(ctx context.Context, m *azservicebus.ReceivedMessage, o *azservicebus.CompleteMessageOptions) error
	AbandonMessage(ctx context.Context, m *azservicebus.ReceivedMessage, o *azservicebus.AbandonMessageOptions) error
	DeadLetterMessage(ctx context.Context, m *azservicebus.ReceivedMessage, o *azservicebus.DeadLetterOptions) error
}

// lockKeeper renews what keeps a delivery's message locked: the message
// lock itself, or for a session the session lock (which a session keeper
// renews on its own).
type lockKeeper interface {
	// renew renews the lock and returns its new expiry.
	renew(ctx context.Context, m *azservicebus.ReceivedMessage) (time.Time, error)
}

// deliveryEnv is what every delivery of one receiver shares.
type deliveryEnv struct {
	cfg    ReceiverConfig
	m      *receiverMetrics
	log    *slog.Logger
	entity string
	now    func() time.Time
}

// delivery is one message received under a peek lock. It is settled once:
// completed by Ack, abandoned by Retry (after the delay), dead-lettered by
// Reject.
type delivery struct {
	de       *deliveryEnv
	env      *messaging.Envelope
	msg      *azservicebus.ReceivedMessage
	link     settleLink
	locks    lockKeeper
	release  func()
	released sync.Once
	settled  chan struct{} // closed once the delivery is done with
	acked    atomic.Bool
	settling atomic.Bool
	lease    atomic.Int64 // UnixNano of the lock's expiry, 0 when unknown
	lockDur  time.Duration
}

// lockedDelivery is a delivery whose message lock the runtime keeps
// (ports.Leased): the deliveries of entities without sessions.
type lockedDelivery struct{ *delivery }

// sessionDelivery is a delivery of a session whose lock the session
// keeper renews; its AbandonContext ends when the session lock is lost.
type sessionDelivery struct {
	*delivery
	sessionCtx context.Context
}

var (
	_ ports.Delivery          = lockedDelivery{}
	_ ports.Leased            = lockedDelivery{}
	_ ports.RedeliveryCounter = lockedDelivery{}
	_ ports.DeliveryKeyer     = lockedDelivery{}
	_ ports.Rejecter          = lockedDelivery{}
	_ ports.SettleObserver    = lockedDelivery{}
	_ ports.AbandonContexter  = sessionDelivery{}
	_ ports.Rejecter          = sessionDelivery{}
)

func newDelivery(de *deliveryEnv, msg *azservicebus.ReceivedMessage, link settleLink, locks lockKeeper, release func()) *delivery {
	now := de.now()
	d := &delivery{de: de, env: fromReceived(msg, now), msg: msg, link: link, locks: locks, release: release, settled: make(chan struct{})}
	if msg.LockedUntil != nil && msg.LockedUntil.After(now) {
		d.lease.Store(msg.LockedUntil.UnixNano())
		d.lockDur = msg.LockedUntil.Sub(now)
	}
	return d
}

// Envelope returns the message.
func (d *delivery) Envelope() *messaging.Envelope { return d.env }

// Ack completes the message.
func (d *delivery) Ack(ctx context.Context) error {
	err := d.settle(ctx, outCompleted, func(ctx context.Context) error { return d.link.CompleteMessage(ctx, d.msg, nil) })
	if err == nil {
		d.acked.Store(true)
	}
	return err
}

// Retry keeps the message locked for after, renewing the lock before it
// expires, then abandons it, so that Service Bus hands it out again with
// its delivery count raised. Service Bus has no delayed abandon; holding
// the lock keeps the message's sequence number, delivery count and
// session order, which a rescheduled copy would lose. With retry: off it
// returns NOT_SUPPORTED.
func (d *delivery) Retry(ctx context.Context, after time.Duration, _ error) error {
	if d.de.cfg.Retry == RetryOff {
		return fault.ErrNotSupported.WithMessage("servicebus: retry is off for this receiver")
	}
	if err := d.hold(ctx, after); err != nil {
		d.de.m.settled[outFailed].Add(1)
		return err
	}
	return d.settle(ctx, outAbandoned, func(ctx context.Context) error { return d.link.AbandonMessage(ctx, d.msg, nil) })
}

// hold waits for after, renewing the lock each time a third of it is
// left.
func (d *delivery) hold(ctx context.Context, after time.Duration) error {
	end := d.de.now().Add(after)
	for {
		now := d.de.now()
		wait := end.Sub(now)
		if wait <= 0 {
			return nil
		}
		renewAt := time.Duration(-1)
		if until := d.leaseUntil(); !until.IsZero() && d.lockDur > 0 {
			renewAt = max(until.Sub(now)-d.lockDur/3, 0)
		}
		renew := renewAt >= 0 && renewAt < wait
		if renew {
			wait = renewAt
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fault.ErrTimeout.WithMessage("servicebus: waiting to retry").Wrap(ctx.Err())
		}
		if renew {
			if err := d.Extend(ctx, time.Time{}); err != nil {
				return err
			}
		}
	}
}

// Reject moves the message to the entity's dead-letter subqueue when the
// receiver is configured with on_permanent: dead_letter; otherwise it
// returns NOT_SUPPORTED and the route uses the bridge's DLQ. The reason is
// gobridge:<category> and the description only the fault code, never the
// error's text, which may quote the payload.
func (d *delivery) Reject(ctx context.Context, category ports.DLQCategory, reason error) error {
	if d.de.cfg.OnPermanent != PermanentDeadLetter {
		return fault.ErrNotSupported.WithMessage("servicebus: on_permanent is dlq for this receiver")
	}
	why, desc := "gobridge:"+string(category), string(fault.CodeOf(reason))
	return d.settle(ctx, outDeadLettered, func(ctx context.Context) error {
		return d.link.DeadLetterMessage(ctx, d.msg, &azservicebus.DeadLetterOptions{Reason: &why, ErrorDescription: &desc})
	})
}

// Extend renews the message's lock; Service Bus extends it by the
// entity's lock duration from now, whatever until asks. A lost lock is
// counted and reported: the runtime then stops working on the message.
func (d *delivery) Extend(ctx context.Context, _ time.Time) error {
	until, err := d.locks.renew(ctx, d.msg)
	if err != nil {
		if lockLost(err) {
			d.de.m.lockLost.Add(1)
			d.de.log.Warn("servicebus: lock lost; leaving the message to Service Bus", "entity", d.de.entity, "message_id", d.env.ID)
		}
		return classify("renewing a lock", err)
	}
	d.de.m.renewals.Add(1)
	if !until.IsZero() {
		d.lease.Store(until.UnixNano())
	}
	return nil
}

// leaseUntil returns when the message lock expires unless renewed.
func (d *delivery) leaseUntil() time.Time {
	if n := d.lease.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// RedeliveryCount is the delivery count less one: the SDK counts the
// delivery in hand, so a first delivery is attempt 1.
func (d *delivery) RedeliveryCount() (int, bool) {
	if d.msg.DeliveryCount == 0 {
		return 0, false
	}
	return int(d.msg.DeliveryCount) - 1, true
}

// DeliveryKey is the entity path and the message's sequence number, which
// Service Bus assigns and no producer chooses.
func (d *delivery) DeliveryKey() string {
	if d.msg.SequenceNumber == nil {
		return ""
	}
	return d.de.entity + "#" + strconv.FormatInt(*d.msg.SequenceNumber, 10)
}

// Settled frees the delivery's in-flight slot however the runtime ended it.
func (d *delivery) Settled(ports.Settlement) { d.done() }

// settle runs one settlement call, once, and counts its outcome.
func (d *delivery) settle(ctx context.Context, outcome string, call func(context.Context) error) error {
	if !d.settling.CompareAndSwap(false, true) {
		return fault.ErrInternal.WithMessage("servicebus: delivery already settled")
	}
	if err := call(ctx); err != nil {
		d.settling.Store(false)
		d.de.m.settled[outFailed].Add(1)
		if lockLost(err) {
			d.de.m.lockLost.Add(1)
		}
		return classify(outcome, err)
	}
	d.de.m.settled[outcome].Add(1)
	d.done()
	return nil
}

func (d *delivery) done() {
	d.released.Do(func() {
		d.release()
		close(d.settled)
	})
}

// LeaseUntil is the message lock's expiry.
func (d lockedDelivery) LeaseUntil() time.Time { return d.leaseUntil() }

// AbandonContext ends when the session's lock is lost or the session
// receiver stops: the runtime then leaves the delivery unsettled.
func (d sessionDelivery) AbandonContext() context.Context { return d.sessionCtx }

// messageLocks renews message locks through a receiver without sessions.
type messageLocks struct{ r *azservicebus.Receiver }

func (l messageLocks) renew(ctx context.Context, m *azservicebus.ReceivedMessage) (time.Time, error) {
	if err := l.r.RenewMessageLock(ctx, m, nil); err != nil {
		return time.Time{}, err
	}
	if m.LockedUntil != nil {
		return *m.LockedUntil, nil
	}
	return time.Time{}, nil
}
