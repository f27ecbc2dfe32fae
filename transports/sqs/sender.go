package sqs

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Sender sends envelopes to SQS queues with SendMessageBatch. It
// implements ports.BatchSender and ports.Closer and is safe for
// concurrent use.
type Sender struct {
	api    API
	cfg    SenderConfig
	urls   *queueURLs
	log    *slog.Logger
	closed atomic.Bool

	mu    sync.Mutex
	sends map[string]*batcher[wireMessage] // by queue URL

	// attrMaps holds emptied attribute maps of sent messages for reuse:
	// a new map takes a KiB per message.
	attrMaps sync.Pool
	// ids are the entry IDs of batch calls.
	ids [maxBatch]*string
}

// Option configures a Sender or a Receiver.
type Option func(*options)

type options struct {
	log         *slog.Logger
	maxInFlight int
}

// WithLogger sets the logger (slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithMaxInFlight tells a Receiver the route's in-flight limit, which
// bounds how many messages its pollers hold at once (100).
func WithMaxInFlight(n int) Option { return func(o *options) { o.maxInFlight = n } }

func buildOptions(opts []Option) options {
	o := options{log: slog.Default(), maxInFlight: DefaultMaxInFlight}
	for _, f := range opts {
		f(&o)
	}
	if o.maxInFlight <= 0 {
		o.maxInFlight = DefaultMaxInFlight
	}
	return o
}

// NewSender validates cfg and returns a Sender that calls api.
func NewSender(api API, cfg SenderConfig, opts ...Option) (*Sender, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := buildOptions(opts)
	return &Sender{api: api, cfg: cfg, urls: newQueueURLs(api), log: o.log, sends: map[string]*batcher[wireMessage]{}, ids: entryIDs()}, nil
}

// Send sends one message. With batching on, concurrent sends to one
// queue share a SendMessageBatch call: a send waits up to batch_window for
// others, and 10 waiting go at once.
func (s *Sender) Send(ctx context.Context, msg ports.OutboundMessage) error {
	if s.closed.Load() {
		return fault.ErrUnavailable.WithMessage("sqs: sender closed")
	}
	if err := ctx.Err(); err != nil {
		return classify("SendMessage", err)
	}
	url, w, err := s.prepare(ctx, msg)
	if err != nil {
		return err
	}
	if !*s.cfg.Batch {
		res := make([]ports.BatchResult, 1)
		s.sendOneByOne(ctx, url, []int{0}, []wireMessage{w}, res)
		return res[0].Err
	}
	return s.coalescer(url).do(ctx, w)
}

// coalescer returns the batcher of sends to url.
func (s *Sender) coalescer(url string) *batcher[wireMessage] {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.sends[url]
	if !ok {
		b = newBatcher(s.cfg.BatchWindow, func(ctx context.Context, ws []wireMessage, errs []error) {
			res := make([]ports.BatchResult, len(ws))
			s.sendChunks(ctx, url, ws, func(j int) int { return j }, res)
			for i := range ws {
				errs[i] = res[i].Err
			}
		})
		s.sends[url] = b
	}
	return b
}

// prepare resolves msg's queue and maps it to the wire, FIFO ids
// included.
func (s *Sender) prepare(ctx context.Context, m ports.OutboundMessage) (string, wireMessage, error) {
	addr := m.Address
	if addr == "" {
		addr = s.cfg.Queue
	}
	if addr == "" {
		return "", wireMessage{}, fault.ErrInvalidTopic.WithMessage("sqs: no address and no default queue")
	}
	url, err := s.urls.resolve(ctx, addr)
	if err != nil {
		return "", wireMessage{}, err
	}
	attrs, _ := s.attrMaps.Get().(map[string]types.MessageAttributeValue)
	w, err := toWire(m.Envelope, attrs, s.cfg.MinimalHeaders)
	if err != nil {
		return "", wireMessage{}, fault.ErrInvalidPayload.WithMessage("sqs: encoding the envelope").Wrap(err)
	}
	if w.size > maxMessageBytes {
		return "", wireMessage{}, fault.ErrPayloadTooLarge.WithMessage("sqs: message of " + strconv.Itoa(w.size) + " bytes exceeds 262144")
	}
	if isFIFO(url) {
		if w.group, w.dedup, err = s.cfg.FIFO.ids(m.Envelope); err != nil {
			return "", wireMessage{}, err
		}
	}
	if w.delay, err = delaySeconds(m.NotBefore, time.Now(), isFIFO(url)); err != nil {
		return "", wireMessage{}, err
	}
	return url, w, nil
}

// SendBatch sends msgs, grouped by queue into calls of at most 10 entries
// and 256 KiB, and returns one result per message in input order. A
// message that cannot be mapped or is too large fails on its own.
func (s *Sender) SendBatch(ctx context.Context, msgs []ports.OutboundMessage) ([]ports.BatchResult, error) {
	if s.closed.Load() {
		return nil, fault.ErrUnavailable.WithMessage("sqs: sender closed")
	}
	if err := ctx.Err(); err != nil {
		return nil, classify("SendMessageBatch", err)
	}
	res := make([]ports.BatchResult, len(msgs))
	for i := range res {
		res[i].Index = i
	}
	type queued struct {
		ws  []wireMessage
		idx []int
	}
	byQueue := map[string]*queued{}
	var order []string
	for i, m := range msgs {
		url, w, err := s.prepare(ctx, m)
		if err != nil {
			res[i].Err = err
			continue
		}
		q, ok := byQueue[url]
		if !ok {
			q = &queued{}
			byQueue[url] = q
			order = append(order, url)
		}
		q.ws = append(q.ws, w)
		q.idx = append(q.idx, i)
	}
	for _, url := range order {
		q := byQueue[url]
		s.sendChunks(ctx, url, q.ws, func(j int) int { return q.idx[j] }, res)
	}
	return res, nil
}

// sendChunks sends ws to url in calls of at most 10 entries and 256 KiB;
// the outcome of ws[j] goes to res[at(j)].
func (s *Sender) sendChunks(ctx context.Context, url string, ws []wireMessage, at func(int) int, res []ports.BatchResult) {
	for start := 0; start < len(ws); {
		n, size := 0, 0
		for start+n < len(ws) && n < maxBatch && (n == 0 || size+ws[start+n].size <= maxMessageBytes) {
			size += ws[start+n].size
			n++
		}
		idx := make([]int, n)
		for j := range idx {
			idx[j] = at(start + j)
		}
		s.sendChunk(ctx, url, idx, ws[start:start+n], res)
		start += n
	}
}

// sendChunk makes one SendMessageBatch call and records each entry's
// outcome at its index. Entry IDs are the positions in the chunk.
func (s *Sender) sendChunk(ctx context.Context, url string, idx []int, ws []wireMessage, res []ports.BatchResult) {
	in := &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: make([]types.SendMessageBatchRequestEntry, len(ws))}
	bodies := make([]string, len(ws)) // one allocation for the pointers below
	for j, w := range ws {
		bodies[j] = w.body
		in.Entries[j] = types.SendMessageBatchRequestEntry{Id: s.ids[j], MessageBody: &bodies[j], MessageAttributes: w.attrs,
			MessageGroupId: w.group, MessageDeduplicationId: w.dedup, DelaySeconds: w.delay}
	}
	if !*s.cfg.Batch {
		s.sendOneByOne(ctx, url, idx, ws, res)
		return
	}
	out, err := s.api.SendMessageBatch(ctx, in)
	s.recycle(ws)
	if err != nil {
		err = classify("SendMessageBatch", err)
		for _, i := range idx {
			res[i].Err = err
		}
		return
	}
	seen := make([]bool, len(ws))
	for _, ok := range out.Successful {
		if j, e := strconv.Atoi(aws.ToString(ok.Id)); e == nil && j >= 0 && j < len(ws) {
			seen[j] = true
		}
	}
	for _, f := range out.Failed {
		j, e := strconv.Atoi(aws.ToString(f.Id))
		if e != nil || j < 0 || j >= len(ws) {
			continue
		}
		seen[j] = true
		fl := smithyFault(f.SenderFault)
		res[idx[j]].Err = classifyCode("SendMessageBatch entry", aws.ToString(f.Code), fl, entryError{aws.ToString(f.Code), aws.ToString(f.Message)})
	}
	for j, ok := range seen {
		if !ok {
			res[idx[j]].Err = fault.ErrProtocolError.WithMessage("sqs: SendMessageBatch returned no result for an entry")
		}
	}
}

// sendOneByOne sends each message with its own SendMessage call.
func (s *Sender) sendOneByOne(ctx context.Context, url string, idx []int, ws []wireMessage, res []ports.BatchResult) {
	for j, w := range ws {
		_, err := s.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(w.body), MessageAttributes: w.attrs,
			MessageGroupId: w.group, MessageDeduplicationId: w.dedup, DelaySeconds: w.delay})
		res[idx[j]].Err = classify("SendMessage", err)
	}
	s.recycle(ws)
}

// recycle empties the attribute maps of sent messages and keeps them for
// reuse; the SDK has serialised them by then.
func (s *Sender) recycle(ws []wireMessage) {
	for i := range ws {
		if ws[i].attrs != nil {
			clear(ws[i].attrs)
			s.attrMaps.Put(ws[i].attrs)
			ws[i].attrs = nil
		}
	}
}

// Close makes further sends fail with UNAVAILABLE and stops the
// goroutines that make the batch calls, once their calls are done.
func (s *Sender) Close(context.Context) error {
	s.closed.Store(true)
	s.mu.Lock()
	bs := make([]*batcher[wireMessage], 0, len(s.sends))
	for _, b := range s.sends {
		bs = append(bs, b)
	}
	s.mu.Unlock()
	for _, b := range bs {
		b.close()
	}
	return nil
}
