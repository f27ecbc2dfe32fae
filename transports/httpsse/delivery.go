package httpsse

import (
	"context"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// defaultSettleGrace bounds two waits of a request whose outcome is pending: for
// Settled after Ack or Retry (the runtime calls it right after them, so
// the wait only matters when something else settles the delivery), and
// for any settlement after the delivery was abandoned.
const defaultSettleGrace = time.Second

type settleState uint8

const (
	statePending settleState = iota
	stateAcked
	stateRetried
)

// delivery is one HTTP request handed to a route. It implements
// ports.Abandoner, so a caller that goes away (or a request that overstays
// its hold timeout, or a shutdown that stops waiting) makes the runtime
// stop working on it, and ports.SettleObserver, whose report picks the
// response status.
type delivery struct {
	env        *messaging.Envelope
	abandonCtx context.Context // ends when the caller goes away
	abandoned  <-chan struct{} // abandonCtx.Done()

	mu         sync.Mutex
	state      settleState
	retryAfter time.Duration
	settled    chan struct{}         // closed by the first Ack or Retry
	observed   chan ports.Settlement // buffered; receives Settled's report
	tick       chan struct{}         // buffered; see wake
}

var (
	_ ports.Delivery         = (*delivery)(nil)
	_ ports.Abandoner        = (*delivery)(nil)
	_ ports.AbandonContexter = (*delivery)(nil)
	_ ports.SettleObserver   = (*delivery)(nil)
)

// newDelivery wraps env; abandon is a context that ends when the caller
// goes away or the receiver gives up on the request.
func newDelivery(env *messaging.Envelope, abandon context.Context) *delivery {
	return &delivery{
		env:        env,
		abandonCtx: abandon,
		abandoned:  abandon.Done(),
		settled:    make(chan struct{}),
		observed:   make(chan ports.Settlement, 1),
		tick:       make(chan struct{}, 1),
	}
}

// Envelope returns the message parsed from the request.
func (d *delivery) Envelope() *messaging.Envelope { return d.env }

// Ack records that the route is done with the message; the caller gets a
// success or a 4xx, depending on the settlement's error.
func (d *delivery) Ack(context.Context) error { return d.settle(stateAcked, 0) }

// Retry records that the caller should send the message again after the
// delay; it gets 503 with Retry-After.
func (d *delivery) Retry(_ context.Context, after time.Duration, _ error) error {
	return d.settle(stateRetried, after)
}

func (d *delivery) settle(s settleState, after time.Duration) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state != statePending {
		return fault.ErrProtocolError.WithMessage("http delivery settled twice")
	}
	d.state, d.retryAfter = s, after
	close(d.settled)
	return nil
}

// Extend is not supported: the caller holds the request, and nothing else
// can see the message meanwhile.
func (d *delivery) Extend(context.Context, time.Time) error {
	return fault.ErrNotSupported.WithMessage("http deliveries have no lease to extend")
}

// Abandoned closes when the caller went away, the request overstayed its
// hold timeout, or the receiver stopped waiting at shutdown.
func (d *delivery) Abandoned() <-chan struct{} { return d.abandoned }

// AbandonContext is the context behind Abandoned, which lets the runtime
// follow it without a watcher goroutine.
func (d *delivery) AbandonContext() context.Context { return d.abandonCtx }

// Settled receives the runtime's account of how the delivery ended. It
// never blocks, even when nobody waits for the answer any more.
func (d *delivery) Settled(st ports.Settlement) {
	select {
	case d.observed <- st:
	default:
	}
}

// fallback is the settlement implied by Ack or Retry alone, for when no
// Settled report arrives.
func (d *delivery) fallback() ports.Settlement {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.state {
	case stateAcked:
		return ports.Settlement{Outcome: ports.SettledAcked, Terminal: true}
	case stateRetried:
		return ports.Settlement{Outcome: ports.SettledRetried}
	default:
		return ports.Settlement{Outcome: ports.SettledUnsettled}
	}
}

// delay is the Retry delay, zero unless the delivery was retried.
func (d *delivery) delay() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.retryAfter
}

// wake is called by the request's timer: the hold timeout or a grace
// period ended.
func (d *delivery) wake() {
	select {
	case d.tick <- struct{}{}:
	default:
	}
}

// outcome waits for the delivery's end and returns it. ok is false when
// the caller went away (gone closes while stopped reports false), in which
// case nothing should be written.
//
// timer calls wake when it fires; it is armed with the hold timeout, and
// its function also abandons the delivery. Once the hold timeout passed,
// the receiver stopped waiting at shutdown (which also closes gone), or
// Ack or Retry was called, outcome waits at most grace more, for Settled
// or for the runtime to give up, and then answers from what it has.
func (d *delivery) outcome(gone <-chan struct{}, stopped func() bool, timer *time.Timer, grace time.Duration) (st ports.Settlement, ok bool) {
	settled, graceful := d.settled, false
	startGrace := func() {
		if !graceful {
			graceful = true
			timer.Reset(grace)
		}
	}
	for {
		select {
		case st := <-d.observed:
			return st, true
		case <-gone:
			if !stopped() {
				return ports.Settlement{}, false
			}
			gone = nil
			startGrace()
		case <-settled:
			settled = nil // wait a little for the richer Settled report
			startGrace()
		case <-d.tick:
			if graceful {
				return d.fallback(), true
			}
			startGrace() // the hold timeout passed and abandoned the delivery
		}
	}
}
