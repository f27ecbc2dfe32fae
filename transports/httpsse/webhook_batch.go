package httpsse

import (
	"bytes"
	"context"
	"net/url"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// SendBatch sends msgs and returns one result per message, in order.
//
// Configured with Batch, it groups the messages by target URL and posts
// each group (split into requests of at most MaxBatchSize) as a JSON array
// of envelopes; a request's outcome is the result of every message in it,
// so one answer that is not 2xx fails the whole request's messages.
// Without Batch it sends the messages one at a time. A message without a
// usable address fails on its own. The top-level error is reserved for a
// closed sender or a context that already ended.
func (s *WebhookSender) SendBatch(ctx context.Context, msgs []ports.OutboundMessage) ([]ports.BatchResult, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	results := make([]ports.BatchResult, len(msgs))
	for i := range results {
		results[i].Index = i
	}
	if !s.cfg.Batch {
		for i, m := range msgs {
			results[i].Err = s.Send(ctx, m)
		}
		return results, nil
	}
	type group struct {
		target *url.URL
		idx    []int
	}
	var (
		groups []*group
		byURL  = map[string]*group{}
	)
	for i, m := range msgs {
		if m.Envelope == nil {
			results[i].Err = fault.ErrInvalidPayload.WithMessage("webhook send: nil envelope")
			continue
		}
		t, err := s.target(m.Address)
		if err != nil {
			results[i].Err = err
			continue
		}
		key := t.String()
		g := byURL[key]
		if g == nil {
			g = &group{target: t}
			byURL[key] = g
			groups = append(groups, g)
		}
		g.idx = append(g.idx, i)
	}
	for _, g := range groups {
		for start := 0; start < len(g.idx); start += s.cfg.MaxBatchSize {
			part := g.idx[start:min(start+s.cfg.MaxBatchSize, len(g.idx))]
			err := s.postBatch(ctx, g.target, msgs, part)
			for _, i := range part {
				results[i].Err = err
			}
		}
	}
	return results, nil
}

// postBatch posts the messages at idx as one JSON array.
func (s *WebhookSender) postBatch(ctx context.Context, target *url.URL, msgs []ports.OutboundMessage, idx []int) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.WriteByte('[')
	for n, i := range idx {
		if n > 0 {
			buf.WriteByte(',')
		}
		if err := appendEnvelope(&buf, msgs[i].Envelope); err != nil {
			return fault.ErrInvalidPayload.WithMessage("webhook batch: cannot encode an envelope").Wrap(err)
		}
	}
	buf.WriteByte(']')
	return s.post(ctx, target, buf.Bytes(), "application/json", nil)
}
