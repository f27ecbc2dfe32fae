package sqs

import (
	"context"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// emitOrdered hands out one receive's messages of a FIFO queue group by
// group: the groups side by side, the messages of one group one at a
// time, each only once the one before it was acked. When one is not
// acked (retried, or left unsettled), the rest of its group goes back to
// the queue at once, so that SQS hands them out again after it, in order.
// It returns once every group is done with, or ctx ended.
func (r *Receiver) emitOrdered(ctx context.Context, st *settler, vis time.Duration, msgs []types.Message, emit ports.EmitFunc, release func()) {
	groups := map[string][]types.Message{}
	var keys []string
	for _, m := range msgs {
		g := m.Attributes[string(types.MessageSystemAttributeNameMessageGroupId)]
		if _, ok := groups[g]; !ok {
			keys = append(keys, g)
		}
		groups[g] = append(groups[g], m)
	}
	var wg sync.WaitGroup
	for _, k := range keys {
		group := groups[k]
		wg.Go(func() { r.emitGroup(ctx, st, vis, group, emit, release) })
	}
	wg.Wait()
}

func (r *Receiver) emitGroup(ctx context.Context, st *settler, vis time.Duration, msgs []types.Message, emit ports.EmitFunc, release func()) {
	giveBack := func(rest []types.Message) {
		r.handBack(st, rest)
		for range rest {
			release()
		}
	}
	for i, m := range msgs {
		d := newDelivery(m, st, r.now, vis, release)
		d.settled = make(chan struct{})
		if err := emit(ctx, d); err != nil {
			giveBack(msgs[i:])
			return
		}
		select {
		case <-d.settled:
		case <-ctx.Done():
			giveBack(msgs[i+1:])
			return
		}
		if !d.acked.Load() {
			giveBack(msgs[i+1:])
			return
		}
	}
}
