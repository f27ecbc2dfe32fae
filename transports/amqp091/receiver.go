package amqp091

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Receiver consumes one queue with manual acknowledgements. It implements
// ports.Receiver, ports.CapabilityReporter and ports.Closer.
//
// Run consumes until its context ends, re-opening the channel (and waiting
// for the session to reconnect) whenever it is lost. When Run stops, the
// consumer is cancelled but its channel stays open for up to Linger, until
// the deliveries the route still handles are settled (or given up on); then
// it closes and the broker requeues whatever is left.
type Receiver struct {
	sess     *Session
	cfg      ReceiverConfig
	o        options
	log      *slog.Logger
	m        receiverMetrics
	prefetch int
	ackHold  time.Duration // 0: no coalescing, see acker
	delays   []retryBucket
	retryPub publisher
	signer   *retrySigner // signs and checks the retry headers
	// deliveryLimit is the queue's x-delivery-limit, when known (0).
	deliveryLimit int
	// stopTimeout is the bridge's stop timeout in nanoseconds (0: none
	// given), which the linger follows; see SetStopTimeout.
	stopTimeout atomic.Int64

	mu     sync.Mutex
	chans  map[*consumeChan]struct{} // open consume channels, current and lingering
	closed bool
	// closing tracks the channel closes in progress (see closeNow).
	closing sync.WaitGroup
}

var (
	_ ports.Receiver           = (*Receiver)(nil)
	_ ports.CapabilityReporter = (*Receiver)(nil)
	_ ports.Closer             = (*Receiver)(nil)
)

// NewReceiver checks cfg and builds a receiver on sess. The prefetch is
// cfg.Prefetch, else the route's max_in_flight (WithMaxInFlight), else
// DefaultPrefetch.
func NewReceiver(sess *Session, cfg ReceiverConfig, opts ...Option) (*Receiver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	o := buildOptions("amqp091", opts)
	prefetch := cfg.Prefetch
	if prefetch == 0 {
		prefetch = min(o.maxInFlight, 65535)
	}
	if prefetch <= 0 {
		prefetch = DefaultPrefetch
	}
	r := &Receiver{
		sess: sess, cfg: cfg, o: o,
		log:      o.logger.With("receiver", o.name, "queue", cfg.Queue),
		m:        newReceiverMetrics(o.meter, o.name),
		prefetch: prefetch,
		ackHold:  cfg.AckHold,
		retryPub: publisher{sess: sess},
		signer:   newRetrySigner(cfg.Retry.SigningKey, sess.cfg.URL, cfg.Queue),
		chans:    make(map[*consumeChan]struct{}),

		deliveryLimit: queueDeliveryLimit(sess.cfg.Topology, cfg),
	}
	r.stopTimeout.Store(int64(o.stopTimeout))
	if !*cfg.AckCoalescing {
		r.ackHold = 0
	}
	if cfg.Retry.Mode == RetryDelayed {
		r.delays = retryBuckets(cfg.Retry)
	}
	return r, nil
}

// Capabilities reports Retry unless the retry mode is off, and that
// unsettled deliveries come back (the broker requeues what a closed
// channel left unacknowledged).
func (r *Receiver) Capabilities() ports.ReceiverCapabilities {
	return ports.ReceiverCapabilities{Retry: r.cfg.Retry.Mode != RetryOff, RedeliversUnsettled: true}
}

// SetStopTimeout tells the receiver how long the bridge waits for in-flight
// deliveries when it stops a route (bridge.shutdown_timeout). The linger
// of a stopped Run follows it: an unset linger equals it, a longer one is
// cut to it, so that a stopped receiver never holds messages longer than
// the route works on them. Safe to call at any time; it applies to the
// next Run that stops. d <= 0 forgets it.
func (r *Receiver) SetStopTimeout(d time.Duration) { r.stopTimeout.Store(int64(max(d, 0))) }

// linger is how long a stopped Run's channel stays open for deliveries
// still in the route.
func (r *Receiver) linger() time.Duration {
	return lingerFor(r.cfg.Linger, time.Duration(r.stopTimeout.Load()))
}

// lingerFor resolves the linger from the configured one and the stop
// timeout (each 0 when unset).
func lingerFor(configured, stop time.Duration) time.Duration {
	switch {
	case configured > 0 && stop > 0:
		return min(configured, stop)
	case configured > 0:
		return configured
	case stop > 0:
		return stop
	}
	return DefaultLinger
}

// Prefetch returns the prefetch count the receiver asks for.
func (r *Receiver) Prefetch() int { return r.prefetch }

// Run consumes the queue and emits each delivery until ctx ends. It
// returns nil then; it returns an error only when the session is closed or
// the broker refuses access to the queue.
//
// When consumption stops because the connection was lost, Run waits for
// the session to reconnect (the session has its own backoff); a channel
// that failed on a live connection is opened again with backoff.
func (r *Receiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	failures := 0
	for {
		l, err := r.sess.acquire(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		progressed, err := r.consume(ctx, l, emit)
		if ctx.Err() != nil {
			return nil
		}
		if progressed {
			failures = 0
		}
		failures++
		if fault.CodeOf(err) == fault.CodeForbidden {
			return err
		}
		delay := r.sess.cfg.Reconnect.Delay(failures, rand.Float64())
		t := time.NewTimer(delay)
		select {
		case <-t.C:
			if err != nil {
				r.log.Warn("amqp091 consumer stopped; starting again", "err", err)
			}
		case <-l.lost:
			// The connection is gone: the session reconnects with its
			// own backoff, and acquire waits for it.
			t.Stop()
			failures = 0
		case <-ctx.Done():
			t.Stop()
			return nil
		}
	}
}

// Close closes every consume channel, lingering ones included (the broker
// requeues their unacknowledged messages), and the retry publisher. It
// waits for the broker to confirm the closes within ctx; a broker that
// does not answer (a network partition) is left to the heartbeat, which
// ends the connection. A Run still going ends its consumption and starts
// again; cancel its context first.
func (r *Receiver) Close(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	chans := make([]*consumeChan, 0, len(r.chans))
	for c := range r.chans {
		chans = append(chans, c)
	}
	r.mu.Unlock()
	for _, c := range chans {
		c.closeNow()
	}
	r.retryPub.close(ctx)
	closed := make(chan struct{})
	go func() { // ends when the last close does, bounded by the heartbeat
		r.closing.Wait()
		close(closed)
	}()
	select {
	case <-closed:
		return nil
	case <-ctx.Done():
		return classify(ctx.Err(), "amqp091 receiver close")
	}
}

func (r *Receiver) register(c *consumeChan) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.chans[c] = struct{}{}
}

func (r *Receiver) unregister(c *consumeChan) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.chans, c)
}
