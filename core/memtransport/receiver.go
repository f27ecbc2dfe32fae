package memtransport

import (
	"context"
	"sync"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Receiver is an in-memory message source. Tests feed it with Publish; the
// runtime reads it with Run. It implements ports.Receiver,
// ports.CapabilityReporter and ports.Closer, and records the fate of every
// delivery it hands out.
//
// The zero value is not usable; call NewReceiver.
type Receiver struct {
	opts     Options
	clk      ports.Clock
	capacity int

	notEmpty  chan struct{} // one-slot wake-up for Run
	notFull   chan struct{} // one-slot wake-up for a blocked Publish
	done      chan struct{} // closed by Close
	closeOnce sync.Once

	mu      sync.Mutex
	closed  bool
	q       deque
	delayed int // retried messages waiting for their timer
	first   *delivery
	last    *delivery
	flying  int // length of the first..last list
	st      counters
	changed chan struct{} // closed on every change; nil while nobody waits
}

var (
	_ ports.Receiver           = (*Receiver)(nil)
	_ ports.CapabilityReporter = (*Receiver)(nil)
	_ ports.Closer             = (*Receiver)(nil)
)

// NewReceiver returns an empty Receiver configured by opts.
func NewReceiver(opts Options) *Receiver {
	r := &Receiver{
		opts:     opts,
		clk:      opts.Clock,
		capacity: opts.QueueSize,
		notEmpty: make(chan struct{}, 1),
		notFull:  make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	if r.clk == nil {
		r.clk = clock.System()
	}
	if r.capacity <= 0 {
		r.capacity = DefaultQueueSize
	}
	return r
}

// Capabilities reports Retry unless Options.NoRetry is set, and
// RedeliversUnsettled when Options.Unsettled is UnsettledRedeliver.
func (r *Receiver) Capabilities() ports.ReceiverCapabilities {
	return ports.ReceiverCapabilities{
		Retry:               !r.opts.NoRetry,
		RedeliversUnsettled: r.opts.Unsettled == UnsettledRedeliver,
	}
}

// Publish appends env to the queue. The Receiver takes ownership of env:
// the caller must not modify it afterwards, because every delivery of the
// message is a copy of env as it is now. Publish blocks while the queue
// holds Options.QueueSize messages, and fails with a transient error when
// ctx ends first or the Receiver is closed.
func (r *Receiver) Publish(ctx context.Context, env *messaging.Envelope) error {
	if env == nil {
		return errNilEnvelope
	}
	for {
		if err := ctx.Err(); err != nil {
			return ctxError(err)
		}
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return errClosed
		}
		if r.q.len() < r.capacity {
			r.q.pushBack(entry{env: env})
			r.st.published++
			room := r.q.len() < r.capacity
			r.notifyLocked()
			r.mu.Unlock()
			signal(r.notEmpty)
			if room {
				signal(r.notFull) // pass the turn to another blocked Publish
			}
			return nil
		}
		r.mu.Unlock()
		select {
		case <-r.notFull:
		case <-ctx.Done():
			return ctxError(ctx.Err())
		case <-r.done:
			return errClosed
		}
	}
}

// Run hands queued messages to emit, one at a time from the calling
// goroutine, until ctx ends or the Receiver is closed; it then returns
// nil. Several Runs may share a Receiver.
//
// When emit returns an error the delivery was not taken: its message goes
// back to the head of the queue, unchanged, and the refused delivery
// becomes stale. Run then continues unless ctx has ended, so an emit that
// keeps failing while ctx lives makes Run offer the same message again at
// once; the runtime's emit fails only when it is stopping.
func (r *Receiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	for {
		d := r.next(ctx)
		if d == nil {
			return nil
		}
		if err := emit(ctx, d); err != nil {
			r.refuse(d)
		}
	}
}

// next blocks until a message is queued and returns a new in-flight
// delivery for it, or nil when ctx ends or the Receiver closes.
func (r *Receiver) next(ctx context.Context) *delivery {
	for {
		if ctx.Err() != nil {
			return nil
		}
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return nil
		}
		if r.q.len() > 0 {
			d := r.handOutLocked(r.q.popFront())
			more, room := r.q.len() > 0, r.q.len() < r.capacity
			r.mu.Unlock()
			if more {
				signal(r.notEmpty) // pass the turn to another Run
			}
			if room {
				signal(r.notFull)
			}
			return d
		}
		r.mu.Unlock()
		select {
		case <-r.notEmpty:
		case <-ctx.Done():
			return nil
		case <-r.done:
			return nil
		}
	}
}

// handOutLocked builds the delivery of e, with its own copy of the
// published envelope, and links it into the in-flight list.
func (r *Receiver) handOutLocked(e entry) *delivery {
	d := &delivery{r: r, orig: e.env, redeliveries: e.redeliveries}
	d.env = *e.env
	d.env.Headers = messaging.CloneHeaders(e.env.Headers)
	d.prev = r.last
	if r.last != nil {
		r.last.next = d
	} else {
		r.first = d
	}
	r.last = d
	r.flying++
	r.st.emitted++
	r.notifyLocked()
	return d
}

// unlinkLocked removes d from the in-flight list.
func (r *Receiver) unlinkLocked(d *delivery) {
	if d.prev != nil {
		d.prev.next = d.next
	} else {
		r.first = d.next
	}
	if d.next != nil {
		d.next.prev = d.prev
	} else {
		r.last = d.prev
	}
	d.prev, d.next = nil, nil
	r.flying--
}

// refuse puts the message of a delivery that emit did not take back at
// the head of the queue. Its redelivery count does not change, because
// the route never saw it.
func (r *Receiver) refuse(d *delivery) {
	r.mu.Lock()
	if d.state != stateInFlight {
		r.mu.Unlock()
		return
	}
	r.unlinkLocked(d)
	d.state = stateStale
	r.st.refused++
	r.q.pushFront(entry{env: d.orig, redeliveries: d.redeliveries})
	r.notifyLocked()
	r.mu.Unlock()
	signal(r.notEmpty)
}

// RequeueUnsettled simulates a restart of the consumer: every delivery
// handed out and not yet settled becomes stale, and its message either
// returns to the head of the queue in its original order with a
// redelivery count one higher (UnsettledRedeliver) or is dropped
// (UnsettledDrop). Settling a stale delivery later has no effect besides
// an error and a count in Stats.StaleSettlements. It returns how many
// deliveries it affected.
func (r *Receiver) RequeueUnsettled() int {
	r.mu.Lock()
	n := r.flying
	for d := r.last; d != nil; {
		prev := d.prev
		d.prev, d.next = nil, nil
		d.state = stateStale
		if r.opts.Unsettled == UnsettledRedeliver {
			r.q.pushFront(entry{env: d.orig, redeliveries: d.redeliveries + 1})
		} else {
			r.st.dropped++
		}
		d = prev
	}
	r.first, r.last, r.flying = nil, nil, 0
	r.notifyLocked()
	r.mu.Unlock()
	signal(r.notEmpty)
	return n
}

// Close stops the Receiver: Run returns, Publish fails with a transient
// UNAVAILABLE error, and messages waiting for a Retry delay are queued at
// once instead. Deliveries already handed out may still be settled.
// Close is idempotent and always returns nil.
func (r *Receiver) Close(context.Context) error {
	r.closeOnce.Do(func() {
		r.mu.Lock()
		r.closed = true
		r.notifyLocked()
		r.mu.Unlock()
		close(r.done)
	})
	return nil
}
