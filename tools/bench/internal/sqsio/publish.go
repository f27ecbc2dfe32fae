package sqsio

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// MaxBatch is the most entries SQS takes in one batch call.
const MaxBatch = 10

// Load is what Publish sends.
type Load struct {
	Run        uint64
	N          int
	Size       int // body characters, at least BodyHeader
	Rate       int // messages per second; 0 sends as fast as the emulator takes them
	Publishers int // concurrent SendMessageBatch calls (default 8)
}

// batches splits 0..n-1 into runs of at most MaxBatch: the first sequence
// number of each and its length.
func batches(n int) [][2]int {
	var out [][2]int
	for i := 0; i < n; i += MaxBatch {
		out = append(out, [2]int{i, min(MaxBatch, n-i)})
	}
	return out
}

// Publish sends l.N stamped messages to the queue at url in
// SendMessageBatch calls of 10, from l.Publishers goroutines, and fails
// if any entry failed.
func Publish(ctx context.Context, c *sqs.Client, url string, l Load) error {
	pubs := l.Publishers
	if pubs <= 0 {
		pubs = 8
	}
	work := make(chan [2]int)
	pace := bench.NewPacer(l.Rate)
	errs := make(chan error, pubs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range pubs {
		go func() {
			for b := range work {
				if err := sendBatch(ctx, c, url, l, pace, b[0], b[1]); err != nil {
					cancel()
					errs <- err
					for range work { // let the feeder finish
					}
					return
				}
			}
			errs <- nil
		}()
	}
feed:
	for _, b := range batches(l.N) {
		select {
		case work <- b:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	var all []error
	for range pubs {
		all = append(all, <-errs)
	}
	if err := errors.Join(all...); err != nil {
		return err
	}
	return context.Cause(ctx)
}

func sendBatch(ctx context.Context, c *sqs.Client, url string, l Load, pace *bench.Pacer, first, n int) error {
	if err := pace.Wait(ctx, first); err != nil {
		return err
	}
	entries := make([]types.SendMessageBatchRequestEntry, n)
	for i := range entries {
		entries[i] = types.SendMessageBatchRequestEntry{
			Id:          aws.String(strconv.Itoa(i)),
			MessageBody: aws.String(EncodeBody(bench.Stamp{Run: l.Run, Seq: uint64(first + i), Sent: time.Now()}, l.Size)),
		}
	}
	out, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
	if err != nil {
		return fmt.Errorf("sqsio: send batch at %d: %w", first, err)
	}
	if len(out.Failed) > 0 {
		f := out.Failed[0]
		return fmt.Errorf("sqsio: send batch at %d: %d entries failed, first %s: %s", first, len(out.Failed), aws.ToString(f.Code), aws.ToString(f.Message))
	}
	return nil
}
