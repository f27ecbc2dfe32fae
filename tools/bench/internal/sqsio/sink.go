package sqsio

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// Sink drains a queue into a bench.Counter: several pollers each receive
// up to 10 messages (long polling), count them, and delete them in one
// batch, so that nothing it saw comes back when its visibility runs out.
type Sink struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error // the last error a poller saw
	errs   int
}

// SinkPollers is how many receive calls the sink keeps open by default:
// enough that it outruns either forwarder on the emulator.
const SinkPollers = 4

// StartSink starts pollers (SinkPollers when ≤ 0) on the queue at url,
// counting into c, until Stop.
func StartSink(c *sqs.Client, url string, counter *bench.Counter, pollers int) *Sink {
	if pollers <= 0 {
		pollers = SinkPollers
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Sink{cancel: cancel}
	for range pollers {
		s.wg.Go(func() { s.poll(ctx, c, url, counter) })
	}
	return s
}

func (s *Sink) poll(ctx context.Context, c *sqs.Client, url string, counter *bench.Counter) {
	in := &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: MaxBatch, WaitTimeSeconds: 1}
	for ctx.Err() == nil {
		out, err := c.ReceiveMessage(ctx, in)
		if err != nil {
			s.fail(ctx, err)
			continue
		}
		if len(out.Messages) == 0 {
			continue
		}
		now := time.Now()
		del := make([]types.DeleteMessageBatchRequestEntry, 0, len(out.Messages))
		for i, m := range out.Messages {
			st, err := DecodeBody(aws.ToString(m.Body))
			if err != nil {
				st = bench.Stamp{} // counted as stray
			}
			counter.Observe(st, now)
			del = append(del, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
		}
		if _, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: del}); err != nil {
			s.fail(ctx, err)
		}
	}
}

// fail records err and pauses the poller briefly, unless the sink stops.
func (s *Sink) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	s.err, s.errs = err, s.errs+1
	s.mu.Unlock()
	t := time.NewTimer(100 * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// Stop ends the pollers, waits for them, and reports the errors they saw.
func (s *Sink) Stop() error {
	s.cancel()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil && !errors.Is(s.err, context.Canceled) {
		return fmt.Errorf("sqsio: sink: %d errors, the last: %w", s.errs, s.err)
	}
	return nil
}
