package sqs

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// defaultQueueVisibility is assumed when the queue's VisibilityTimeout
// cannot be read (SQS's own default).
const defaultQueueVisibility = 30 * time.Second

// Receiver long-polls one queue. It implements ports.Receiver and
// ports.CapabilityReporter.
type Receiver struct {
	api  API
	cfg  ReceiverConfig
	o    options
	urls *queueURLs
	now  func() time.Time
}

// NewReceiver validates cfg and returns a Receiver that calls api.
func NewReceiver(api API, cfg ReceiverConfig, opts ...Option) (*Receiver, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Receiver{api: api, cfg: cfg, o: buildOptions(opts), urls: newQueueURLs(api), now: time.Now}, nil
}

// Capabilities: Retry changes the visibility, and a message nobody
// deletes comes back when its visibility ends.
func (r *Receiver) Capabilities() ports.ReceiverCapabilities {
	return ports.ReceiverCapabilities{Retry: true, RedeliversUnsettled: true}
}

// pollers is how many receive calls run at once.
func (r *Receiver) pollers() int {
	if r.cfg.Pollers > 0 {
		return r.cfg.Pollers
	}
	n := (r.o.maxInFlight + r.cfg.MaxMessages - 1) / r.cfg.MaxMessages
	return max(1, min(n, 10))
}

// Run polls until ctx ends. Together the pollers never hold more than
// the in-flight limit: a poller reserves a slot per message it asks for,
// and a delivery gives its slot back once settled, or once acked and its
// delete queued. Queued deletes are bounded by the same limit, so at most
// twice that many messages are received and not yet deleted.
func (r *Receiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	url, err := r.resolveQueue(ctx)
	if err != nil || url == "" {
		return err
	}
	vis := r.visibility(ctx, url)
	st := newSettler(r.api, url, r.cfg.BatchWindow, r.o.maxInFlight, r.o.log)
	// Deliveries may still be settled after Run returns; their batches
	// then flush on the settling goroutine.
	defer st.close()
	slots := make(chan struct{}, r.o.maxInFlight)
	turn := make(chan struct{}, 1)
	var wg sync.WaitGroup
	for range r.pollers() {
		wg.Go(func() { withStackReserve(func() { r.poll(ctx, url, vis, st, slots, turn, emit) }) })
	}
	wg.Wait()
	return nil
}

// resolveQueue finds the queue's URL, trying again while SQS cannot be
// reached: only a permanent answer (no such queue, access denied) ends
// Run. It returns nil error and "" when ctx ended.
func (r *Receiver) resolveQueue(ctx context.Context) (string, error) {
	backoff := 100 * time.Millisecond
	for {
		url, err := r.urls.resolve(ctx, r.cfg.Queue)
		if err == nil || ctx.Err() != nil {
			return url, nil
		}
		if !fault.IsRecoverable(err) {
			return "", err
		}
		r.o.log.Warn("sqs: cannot resolve the queue yet", "queue", r.cfg.Queue, "err", err, "retry_in", backoff)
		t := time.NewTimer(max(backoff, fault.RetryAfter(err)))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return "", nil
		}
		backoff = min(2*backoff, 10*time.Second)
	}
}

// visibility is the configured visibility timeout, else the queue's.
func (r *Receiver) visibility(ctx context.Context, url string) time.Duration {
	if r.cfg.VisibilityTimeout > 0 {
		return r.cfg.VisibilityTimeout
	}
	out, err := r.api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameVisibilityTimeout}})
	if err == nil {
		if n, e := strconv.Atoi(out.Attributes[string(types.QueueAttributeNameVisibilityTimeout)]); e == nil && n > 0 {
			return time.Duration(n) * time.Second
		}
	}
	r.o.log.Warn("sqs: could not read the queue's visibility timeout; assuming 30s", "queue", url, "err", err)
	return defaultQueueVisibility
}

func (r *Receiver) poll(ctx context.Context, url string, vis time.Duration, st *settler, slots, turn chan struct{}, emit ports.EmitFunc) {
	backoff := time.Duration(0)
	release := func() { <-slots }
	for {
		n := r.reserve(ctx, slots, turn)
		if n == 0 {
			return
		}
		in := &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: int32(n),
			WaitTimeSeconds: int32(r.cfg.WaitTime / time.Second), MessageAttributeNames: []string{"All"},
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount,
				types.MessageSystemAttributeNameMessageGroupId}}
		if r.cfg.VisibilityTimeout > 0 {
			in.VisibilityTimeout = int32(r.cfg.VisibilityTimeout / time.Second)
		}
		out, err := r.api.ReceiveMessage(ctx, in)
		got := 0
		if err == nil {
			got = len(out.Messages)
		}
		for range n - got {
			release()
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			cerr := classify("ReceiveMessage", err)
			// Double the pause from 100ms up to 10s, and wait at least
			// as long as a throttled call asks.
			backoff = max(min(max(2*backoff, 100*time.Millisecond), 10*time.Second), fault.RetryAfter(cerr))
			r.o.log.Warn("sqs: receive failed", "queue", url, "err", cerr, "retry_in", backoff)
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
			continue
		}
		backoff = 0
		if *r.cfg.Ordered {
			r.emitOrdered(ctx, st, vis, out.Messages, emit, release)
			if ctx.Err() != nil {
				return
			}
			continue
		}
		for i, m := range out.Messages {
			d := newDelivery(m, st, r.now, vis, release)
			if err := emit(ctx, d); err != nil {
				// Not taken: hand this message and the rest back now
				// instead of when their visibility ends.
				r.handBack(st, out.Messages[i:])
				for range out.Messages[i:] {
					release()
				}
				if ctx.Err() != nil {
					return
				}
				break
			}
		}
	}
}

// reserve takes slots for one receive: it waits for the first, then up
// to batch_window for more, up to max_messages, so that a receive asks
// for a full batch when slots come back one ack at a time (SQS bills
// per receive as well). One poller reserves at a time (it holds turn):
// slots freed together go to one receive instead of being split among
// pollers that would each wait out the window for the rest. It returns 0
// when ctx ended.
func (r *Receiver) reserve(ctx context.Context, slots, turn chan struct{}) int {
	select {
	case turn <- struct{}{}:
	case <-ctx.Done():
		return 0
	}
	defer func() { <-turn }()
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return 0
	}
	n := 1
	var wait <-chan time.Time
	for n < r.cfg.MaxMessages {
		select {
		case slots <- struct{}{}:
			n++
			continue
		default:
		}
		if wait == nil {
			t := time.NewTimer(r.cfg.BatchWindow)
			defer t.Stop()
			wait = t.C
		}
		select {
		case slots <- struct{}{}:
			n++
		case <-wait:
			return n
		case <-ctx.Done():
			return n
		}
	}
	return n
}

// handBack makes messages the route did not take visible again at once.
func (r *Receiver) handBack(st *settler, msgs []types.Message) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, m := range msgs {
		if err := st.changeVisibility(ctx, aws.ToString(m.ReceiptHandle), 0); err != nil {
			r.o.log.Debug("sqs: hand-back failed; the message returns when its visibility ends", "err", err, slog.String("id", aws.ToString(m.MessageId)))
		}
	}
}
