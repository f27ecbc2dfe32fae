package servicebus

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// runSessions reads a session-enabled entity: up to max_sessions workers
// (never more than the route's max_in_flight) each accept the next free
// session, hand its messages out one at a time in order, and release it
// once it stays idle for session_idle_timeout. It returns an error only
// when Service Bus answers that the entity does not exist or access is
// denied.
func (r *Receiver) runSessions(ctx context.Context, slots chan struct{}, emit ports.EmitFunc) error {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var wg sync.WaitGroup
	for range min(r.cfg.MaxSessions, r.o.maxInFlight) {
		wg.Go(func() {
			if err := r.sessionWorker(ctx, slots, emit); err != nil {
				stop(err)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); permanentStop(err) {
		return err
	}
	return nil
}

// sessionWorker accepts sessions one after the other until ctx ends.
func (r *Receiver) sessionWorker(ctx context.Context, slots chan struct{}, emit ports.EmitFunc) error {
	var backoff time.Duration
	for ctx.Err() == nil {
		sr, err := r.acceptNext(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			cerr := classify("accepting a session of "+r.de.entity, err)
			if fault.CodeOf(cerr) == fault.CodeTimeout {
				continue // no session was free within Service Bus's wait
			}
			if !fault.IsRecoverable(cerr) {
				return cerr
			}
			backoff = max(min(max(2*backoff, 100*time.Millisecond), 10*time.Second), fault.RetryAfter(cerr))
			r.o.log.Warn("servicebus: accepting a session failed", "entity", r.de.entity, "err", cerr, "retry_in", backoff)
			if !sleep(ctx, backoff) {
				return nil
			}
			continue
		}
		backoff = 0
		r.holdSession(ctx, sr, slots, emit)
	}
	return nil
}

func (r *Receiver) acceptNext(ctx context.Context) (*azservicebus.SessionReceiver, error) {
	opts := &azservicebus.SessionReceiverOptions{ReceiveMode: azservicebus.ReceiveModePeekLock}
	if r.cfg.Queue != "" {
		return r.client.AcceptNextSessionForQueue(ctx, r.cfg.Queue, opts)
	}
	return r.client.AcceptNextSessionForSubscription(ctx, r.cfg.Topic, r.cfg.Subscription, opts)
}

// holdSession hands out one session's messages in order, each only once
// the one before was completed, while a keeper renews the session lock.
// It releases the session when it stays idle, when a message is not
// completed (so that Service Bus hands it out again before the ones
// after it), when the lock is lost or when ctx ends. The session state
// is never read or written.
func (r *Receiver) holdSession(ctx context.Context, sr *azservicebus.SessionReceiver, slots chan struct{}, emit ports.EmitFunc) {
	r.de.m.sessions.Add(1)
	r.de.m.sessionUp.Add(1)
	sctx, lost := context.WithCancelCause(ctx)
	locks := &sessionLocks{sr: sr}
	keeper := r.keepSession(sctx, sr, locks, lost)
	var held inFlight
	defer func() {
		held.wait(r.cfg.linger())
		lost(nil)
		keeper.Wait()
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = sr.Close(cctx)
		r.de.m.sessionUp.Add(-1)
	}()
	batch := r.cfg.MaxMessages
	if batch == 0 {
		batch = DefaultSessionMaxMessages
	}
	for {
		n := reserve(sctx, slots, batch)
		if n == 0 {
			return
		}
		rctx, cancel := context.WithTimeout(sctx, r.cfg.SessionIdleTimeout)
		msgs, err := sr.ReceiveMessages(rctx, n, nil)
		cancel()
		r.de.m.receives.Add(1)
		for range n - len(msgs) {
			<-slots
		}
		if len(msgs) == 0 {
			if err != nil && sctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
				r.o.log.Debug("servicebus: session receive failed; releasing the session", "entity", r.de.entity,
					"session", sr.SessionID(), "err", classify("ReceiveMessages", err))
			}
			return // idle, failed or stopping: release the session
		}
		for i, m := range msgs {
			d := newDelivery(r.de, m, sr, locks, held.add(slots))
			r.de.m.received.Add(1)
			if err := emit(sctx, sessionDelivery{delivery: d, sessionCtx: sctx}); err != nil {
				d.done()
				releaseRest(slots, msgs[i+1:])
				return
			}
			select {
			case <-d.settled:
			case <-sctx.Done():
				releaseRest(slots, msgs[i+1:])
				return
			}
			if !d.acked.Load() {
				// Retried, dead-lettered or left unsettled: release the
				// session so that what follows comes after it again.
				releaseRest(slots, msgs[i+1:])
				return
			}
		}
	}
}

// releaseRest gives back the slots of messages that were received but
// not handed out; releasing the session hands them back to Service Bus.
func releaseRest(slots chan struct{}, rest []*azservicebus.ReceivedMessage) {
	for range rest {
		<-slots
	}
}

// keepSession renews sr's session lock each time a third of it is left,
// until ctx ends; when a renewal fails it cancels ctx with the error, so
// that the session's deliveries are abandoned by the runtime.
func (r *Receiver) keepSession(ctx context.Context, sr *azservicebus.SessionReceiver, locks *sessionLocks, lost context.CancelCauseFunc) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Go(func() {
		until := locks.until()
		period := until.Sub(r.de.now())
		if until.IsZero() || period <= 0 {
			return
		}
		for {
			if !sleep(ctx, max(until.Sub(r.de.now())-period/3, 0)) {
				return
			}
			rctx, cancel := context.WithTimeout(ctx, max(until.Sub(r.de.now()), period/3))
			next, err := locks.renew(rctx, nil)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				r.de.m.lockLost.Add(1)
				cerr := classify("renewing the session lock", err)
				r.o.log.Warn("servicebus: session lock lost; releasing the session", "entity", r.de.entity, "session", sr.SessionID(), "err", cerr)
				lost(cerr)
				return
			}
			r.de.m.renewals.Add(1)
			until = next
		}
	})
	return &wg
}

// sessionLocks renews the session lock that covers a session's messages,
// for the keeper and the session's deliveries alike. The SDK's session
// receiver does not guard its lock expiry against concurrent renewals,
// so every use goes through mu.
type sessionLocks struct {
	mu sync.Mutex
	sr *azservicebus.SessionReceiver
}

func (l *sessionLocks) renew(ctx context.Context, _ *azservicebus.ReceivedMessage) (time.Time, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.sr.RenewSessionLock(ctx, nil); err != nil {
		return time.Time{}, err
	}
	return l.sr.LockedUntil(), nil
}

// until returns the session lock's expiry.
func (l *sessionLocks) until() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sr.LockedUntil()
}
