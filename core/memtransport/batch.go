package memtransport

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// BatchSender is a Sender that also implements ports.BatchSender. Every
// message of a batch is handled as by Send, so SenderOptions.Fail applies
// to each message on its own.
type BatchSender struct {
	*Sender
	sizes []int // guarded by Sender.mu
}

var _ ports.BatchSender = (*BatchSender)(nil)

// NewBatchSender returns a BatchSender configured by opts.
func NewBatchSender(opts SenderOptions) *BatchSender {
	return &BatchSender{Sender: NewSender(opts)}
}

// SendBatch sends msgs in order and returns one result per message with
// Index equal to its position. The whole batch fails, with nil results and
// nothing sent, only when ctx has already ended or the sender is closed.
// An empty batch yields an empty result and a nil error.
func (b *BatchSender) SendBatch(ctx context.Context, msgs []ports.OutboundMessage) ([]ports.BatchResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxError(err)
	}
	if b.closed.Load() {
		return nil, errClosed
	}
	b.mu.Lock()
	b.sizes = append(b.sizes, len(msgs))
	b.mu.Unlock()
	results := make([]ports.BatchResult, len(msgs))
	for i, m := range msgs {
		results[i] = ports.BatchResult{Index: i, Err: b.Send(ctx, m)}
	}
	return results, nil
}

// BatchSizes returns the length of every SendBatch call that got past the
// whole-batch checks, in call order.
func (b *BatchSender) BatchSizes() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]int(nil), b.sizes...)
}
