package sbio

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// Load describes what the load generator publishes.
type Load struct {
	Run  uint64 // stamped into every payload
	N    int    // messages, sequence numbers 0..N-1
	Size int    // payload bytes
	Rate int    // messages per second; 0 publishes as fast as the emulator takes them
	// Publishers is the number of senders sending batches side by side
	// (default 4), each a stripe of the sequence numbers.
	Publishers int
	// Batch is the most messages one SendMessageBatch carries (default
	// 100; a batch is also cut when it reaches the link's size limit).
	Batch int
}

// Publish sends l.N stamped messages to queue in batches, from
// l.Publishers senders on one connection, and returns once the emulator
// accepted every one.
func Publish(ctx context.Context, connStr, queue string, l Load) error {
	client, err := azservicebus.NewClientFromConnectionString(connStr, nil)
	if err != nil {
		return fmt.Errorf("sbio: client: %w", err)
	}
	defer client.Close(context.Background())
	return bench.Stripes(ctx, l.Publishers, l.Rate, func(ctx context.Context, pace *bench.Pacer, first, step int) error {
		return publishStripe(ctx, client, queue, l, pace, first, step)
	})
}

// publishStripe sends sequence numbers first, first+step, ... on a sender
// of its own.
func publishStripe(ctx context.Context, client *azservicebus.Client, queue string, l Load, pace *bench.Pacer, first, step int) error {
	s, err := client.NewSender(queue, nil)
	if err != nil {
		return fmt.Errorf("sbio: sender: %w", err)
	}
	defer s.Close(context.Background())
	most := l.Batch
	if most <= 0 {
		most = 100
	}
	var pending *azservicebus.Message // the message a full batch did not take
	for i := first; i < l.N || pending != nil; {
		batch, err := s.NewMessageBatch(ctx, nil)
		if err != nil {
			return fmt.Errorf("sbio: batch: %w", err)
		}
		if pending != nil {
			if err := batch.AddMessage(pending, nil); err != nil {
				return fmt.Errorf("sbio: a %d-byte message does not fit a batch: %w", l.Size, err)
			}
			pending = nil
		}
		for int(batch.NumMessages()) < most && i < l.N {
			if l.Rate > 0 && batch.NumMessages() > 0 && time.Until(pace.Due(i)) > 0 {
				break // send what is due now, then wait
			}
			if err := pace.Wait(ctx, i); err != nil {
				return err
			}
			m := &azservicebus.Message{Body: bench.Encode(bench.Stamp{Run: l.Run, Seq: uint64(i), Sent: time.Now()}, l.Size)}
			i += step
			if err := batch.AddMessage(m, nil); err != nil {
				if !errors.Is(err, azservicebus.ErrMessageTooLarge) {
					return fmt.Errorf("sbio: add: %w", err)
				}
				pending = m
				break
			}
		}
		if batch.NumMessages() == 0 {
			continue
		}
		if err := s.SendMessageBatch(ctx, batch, nil); err != nil {
			return fmt.Errorf("sbio: send: %w", err)
		}
	}
	return nil
}
