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

// Receiver reads one queue or topic subscription under peek locks. It
// implements ports.Receiver, ports.CapabilityReporter and ports.Closer.
type Receiver struct {
	client *azservicebus.Client
	// release gives the factory's client back; nil for a caller's client.
	release func(context.Context) error
	cfg     ReceiverConfig
	o       options
	de      *deliveryEnv
}

var (
	_ ports.Receiver           = (*Receiver)(nil)
	_ ports.CapabilityReporter = (*Receiver)(nil)
	_ ports.Closer             = (*Receiver)(nil)
)

// NewReceiver validates cfg and returns a Receiver that reads through
// client. Close does not close client.
func NewReceiver(client *azservicebus.Client, cfg ReceiverConfig, opts ...Option) (*Receiver, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := buildOptions(opts)
	de := &deliveryEnv{cfg: cfg, m: newReceiverMetrics(o.meter, o.name), log: o.log, entity: cfg.entityPath(), now: time.Now}
	return &Receiver{client: client, cfg: cfg, o: o, de: de}, nil
}

// Capabilities: Retry abandons the message after the delay (unless retry
// is off), and a message whose lock expires comes back.
func (r *Receiver) Capabilities() ports.ReceiverCapabilities {
	return ports.ReceiverCapabilities{Retry: r.cfg.Retry != RetryOff, RedeliversUnsettled: true}
}

// Close gives back the client when the factory provided it; the last
// component holding a client closes it.
func (r *Receiver) Close(ctx context.Context) error {
	if r.release == nil {
		return nil
	}
	return r.release(ctx)
}

// Run receives until ctx ends. It returns an error only when Service Bus
// answers that the entity does not exist or access is denied.
func (r *Receiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	slots := make(chan struct{}, r.o.maxInFlight)
	if r.cfg.Sessions {
		return r.runSessions(ctx, slots, emit)
	}
	links := make([]*azservicebus.Receiver, r.cfg.Links)
	opts := &azservicebus.ReceiverOptions{ReceiveMode: azservicebus.ReceiveModePeekLock}
	for i := range links {
		var err error
		if r.cfg.Queue != "" {
			links[i], err = r.client.NewReceiverForQueue(r.cfg.Queue, opts)
		} else {
			links[i], err = r.client.NewReceiverForSubscription(r.cfg.Topic, r.cfg.Subscription, opts)
		}
		if err != nil {
			closeLinks(links[:i])
			return classify("opening a receiver for "+r.de.entity, err)
		}
	}
	var held inFlight
	defer func() {
		held.wait(r.cfg.linger())
		closeLinks(links)
	}()
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var wg sync.WaitGroup
	for _, l := range links {
		wg.Go(func() {
			if err := r.receiveLoop(ctx, l, slots, &held, emit); err != nil {
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

// closeLinks closes receivers, bounded in time.
func closeLinks(links []*azservicebus.Receiver) {
	cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, l := range links {
		_ = l.Close(cctx)
	}
}

// receiveLoop receives on one link until ctx ends or Service Bus gives a
// permanent answer, which it returns.
func (r *Receiver) receiveLoop(ctx context.Context, rcv *azservicebus.Receiver, slots chan struct{}, held *inFlight, emit ports.EmitFunc) error {
	batch := r.cfg.MaxMessages
	if batch == 0 {
		batch = min(r.o.maxInFlight, maxCredits)
	}
	locks := messageLocks{rcv}
	var backoff time.Duration
	for {
		n := reserve(ctx, slots, batch)
		if n == 0 {
			return nil
		}
		if n < batch/2 {
			// Busy: wait a little for more room, so that a receive asks
			// for a batch rather than for what one settlement freed.
			n += gather(ctx, slots, batch/2-n, r.cfg.receiveWait())
		}
		msgs, err := rcv.ReceiveMessages(ctx, n, nil)
		r.de.m.receives.Add(1)
		for range n - len(msgs) {
			<-slots
		}
		if err != nil && len(msgs) == 0 {
			if ctx.Err() != nil {
				return nil
			}
			cerr := classify("ReceiveMessages "+r.de.entity, err)
			if !fault.IsRecoverable(cerr) {
				return cerr
			}
			backoff = max(min(max(2*backoff, 100*time.Millisecond), 10*time.Second), fault.RetryAfter(cerr))
			r.o.log.Warn("servicebus: receive failed", "entity", r.de.entity, "err", cerr, "retry_in", backoff)
			if !sleep(ctx, backoff) {
				return nil
			}
			continue
		}
		backoff = 0
		for i, m := range msgs {
			d := newDelivery(r.de, m, rcv, locks, held.add(slots))
			r.de.m.received.Add(1)
			if err := emit(ctx, lockedDelivery{d}); err != nil {
				// Not taken: give this message and the rest back now
				// rather than when their locks expire.
				r.handBack(rcv, msgs[i:])
				d.done()
				for range msgs[i+1:] {
					<-slots
				}
				if ctx.Err() != nil {
					return nil
				}
				break
			}
		}
	}
}

// handBack abandons messages the route did not take.
func (r *Receiver) handBack(link settleLink, msgs []*azservicebus.ReceivedMessage) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, m := range msgs {
		if err := link.AbandonMessage(ctx, m, nil); err != nil {
			r.o.log.Debug("servicebus: hand-back failed; the message returns when its lock expires", "entity", r.de.entity, "err", err)
			return
		}
		r.de.m.settled[outAbandoned].Add(1)
	}
}

// reserve takes slots for one receive: it waits for the first, then
// takes whatever else is free, up to most. It returns 0 when ctx ended.
func reserve(ctx context.Context, slots chan struct{}, most int) int {
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return 0
	}
	n := 1
	for n < most {
		select {
		case slots <- struct{}{}:
			n++
		default:
			return n
		}
	}
	return n
}

// gather takes up to more further slots as they come back, for at most
// window, and returns how many it took.
func gather(ctx context.Context, slots chan struct{}, more int, window time.Duration) int {
	if more <= 0 || window <= 0 {
		return 0
	}
	t := time.NewTimer(window)
	defer t.Stop()
	n := 0
	for n < more {
		select {
		case slots <- struct{}{}:
			n++
		case <-t.C:
			return n
		case <-ctx.Done():
			return n
		}
	}
	return n
}

// sleep waits for d or for ctx to end; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// inFlight counts the deliveries of one Run not yet done with, so that a
// stopping Run can give them time to settle before it closes its links.
type inFlight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed while n == 0; nil means idle
}

// add counts one delivery holding one slot and returns its release.
func (f *inFlight) add(slots chan struct{}) func() {
	f.mu.Lock()
	if f.n == 0 {
		f.idle = make(chan struct{})
	}
	f.n++
	f.mu.Unlock()
	return func() {
		<-slots
		f.mu.Lock()
		f.n--
		if f.n == 0 {
			close(f.idle)
		}
		f.mu.Unlock()
	}
}

// wait returns once no delivery is in flight or d has passed.
func (f *inFlight) wait(d time.Duration) {
	f.mu.Lock()
	idle := f.idle
	busy := f.n > 0
	f.mu.Unlock()
	if !busy {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}

// permanentStop reports whether err ends Run: the entity is missing or
// access is denied.
func permanentStop(err error) bool {
	return err != nil && !fault.IsRecoverable(err) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}
