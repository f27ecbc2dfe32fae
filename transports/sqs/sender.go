package sqs

import (
	"context"
	"log/slog"
	"strconv"
	"sync/atomic"

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
	return &Sender{api: api, cfg: cfg, urls: newQueueURLs(api), log: o.log}, nil
}

// Send sends one message.
func (s *Sender) Send(ctx context.Context, msg ports.OutboundMessage) error {
	res, err := s.SendBatch(ctx, []ports.OutboundMessage{msg})
	if err != nil {
		return err
	}
	return res[0].Err
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
	type pending struct {
		idx          int
		w            wireMessage
		group, dedup *string
	}
	byQueue := map[string][]pending{}
	var order []string
	for i, m := range msgs {
		addr := m.Address
		if addr == "" {
			addr = s.cfg.Queue
		}
		if addr == "" {
			res[i].Err = fault.ErrInvalidTopic.WithMessage("sqs: no address and no default queue")
			continue
		}
		url, err := s.urls.resolve(ctx, addr)
		if err != nil {
			res[i].Err = err
			continue
		}
		w, err := toWire(m.Envelope)
		if err != nil {
			res[i].Err = fault.ErrInvalidPayload.WithMessage("sqs: encoding the envelope").Wrap(err)
			continue
		}
		if w.size > maxMessageBytes {
			res[i].Err = fault.ErrPayloadTooLarge.WithMessage("sqs: message of " + strconv.Itoa(w.size) + " bytes exceeds 262144")
			continue
		}
		var group, dedup *string
		if isFIFO(url) {
			if group, dedup, err = s.cfg.FIFO.ids(m.Envelope); err != nil {
				res[i].Err = err
				continue
			}
		}
		if _, ok := byQueue[url]; !ok {
			order = append(order, url)
		}
		byQueue[url] = append(byQueue[url], pending{i, w, group, dedup})
	}
	for _, url := range order {
		items := byQueue[url]
		for len(items) > 0 {
			n, size := 0, 0
			for n < len(items) && n < maxBatch && size+items[n].w.size <= maxMessageBytes {
				size += items[n].w.size
				n++
			}
			chunk := items[:n]
			items = items[n:]
			idx := make([]int, len(chunk))
			ws := make([]wireMessage, len(chunk))
			for j, p := range chunk {
				idx[j], ws[j] = p.idx, p.w
				ws[j].group, ws[j].dedup = p.group, p.dedup
			}
			s.sendChunk(ctx, url, idx, ws, res)
		}
	}
	return res, nil
}

// sendChunk makes one SendMessageBatch call and records each entry's
// outcome at its index. Entry IDs are the positions in the chunk.
func (s *Sender) sendChunk(ctx context.Context, url string, idx []int, ws []wireMessage, res []ports.BatchResult) {
	in := &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: make([]types.SendMessageBatchRequestEntry, len(ws))}
	for j, w := range ws {
		in.Entries[j] = types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(j)), MessageBody: aws.String(w.body), MessageAttributes: w.attrs,
			MessageGroupId: w.group, MessageDeduplicationId: w.dedup}
	}
	if !*s.cfg.Batch {
		s.sendOneByOne(ctx, url, idx, ws, res)
		return
	}
	out, err := s.api.SendMessageBatch(ctx, in)
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
			MessageGroupId: w.group, MessageDeduplicationId: w.dedup})
		res[idx[j]].Err = classify("SendMessage", err)
	}
}

// Close makes further sends fail with UNAVAILABLE.
func (s *Sender) Close(context.Context) error {
	s.closed.Store(true)
	return nil
}
