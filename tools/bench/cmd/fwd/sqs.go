package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/gobridge-oss/gobridge/tools/bench/internal/sqsio"
)

// sqsCalls counts the forwarder's own SQS calls, printed when it stops:
// the requests SQS would bill.
type sqsCalls struct {
	receive, send, delete atomic.Int64
	moved                 atomic.Int64 // messages sent and deleted
}

func (c *sqsCalls) String() string {
	return fmt.Sprintf("ReceiveMessage %d, SendMessageBatch %d, DeleteMessageBatch %d, messages %d",
		c.receive.Load(), c.send.Load(), c.delete.Load(), c.moved.Load())
}

// sqsToSQS is the plain batched SDK forwarder: pollers each receive up to
// 10 messages (long polling), hand them to a goroutine that sends them in
// one SendMessageBatch and, once that succeeded, deletes the sources in
// one DeleteMessageBatch; at most o.window messages are between receive
// and delete. A message whose send failed is not deleted: it comes back
// when its visibility runs out (at least once, as the bridge).
func sqsToSQS(ctx context.Context, o options, ready func(), log *slog.Logger) error {
	c, err := sqsio.NewClient(ctx, o.sqsEndpoint)
	if err != nil {
		return err
	}
	pollers := o.pollers
	if pollers <= 0 {
		pollers = max(1, min((o.window+sqsio.MaxBatch-1)/sqsio.MaxBatch, 10))
	}
	var calls sqsCalls
	defer func() { fmt.Fprintln(os.Stderr, "sqs calls:", calls.String()) }()
	slots := make(chan struct{}, o.window)
	var turn sync.Mutex
	var work sync.WaitGroup
	defer work.Wait()
	errs := make(chan error, pollers)
	ready()
	var polls sync.WaitGroup
	for range pollers {
		polls.Go(func() {
			if err := sqsPoll(ctx, c, o, slots, &turn, &work, &calls, log); err != nil {
				errs <- err
			}
		})
	}
	polls.Wait()
	close(errs)
	return <-errs
}

// sqsPoll is one poller: reserve 10 slots, receive, give back the unused
// ones, forward the batch in the background.
func sqsPoll(ctx context.Context, c *sqs.Client, o options, slots chan struct{}, turn *sync.Mutex, work *sync.WaitGroup, calls *sqsCalls, log *slog.Logger) error {
	in := &sqs.ReceiveMessageInput{QueueUrl: aws.String(o.src), MaxNumberOfMessages: sqsio.MaxBatch, WaitTimeSeconds: 20}
	if o.sendsIDs() || o.sendsHeaders() {
		// What the bridge's receiver asks for, so that the variant
		// differs from the bridge in how it forwards, not in what.
		in.MessageAttributeNames = []string{"All"}
		in.MessageSystemAttributeNames = []types.MessageSystemAttributeName{
			types.MessageSystemAttributeNameApproximateReceiveCount, types.MessageSystemAttributeNameMessageGroupId}
	}
	batch := min(sqsio.MaxBatch, o.window)
	for {
		// A full batch each time, as a plain loop asks for: one poller at
		// a time takes its slots, so pollers never hold part of a batch
		// each and wait for each other.
		turn.Lock()
		n := 0
		for n < batch {
			select {
			case slots <- struct{}{}:
				n++
			case <-ctx.Done():
				turn.Unlock()
				release(slots, n)
				return nil
			}
		}
		turn.Unlock()
		in.MaxNumberOfMessages = int32(n)
		calls.receive.Add(1)
		out, err := c.ReceiveMessage(ctx, in)
		if err != nil {
			release(slots, n)
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("receive: %w", err)
		}
		release(slots, n-len(out.Messages))
		if len(out.Messages) == 0 {
			continue
		}
		msgs := out.Messages
		work.Go(func() {
			defer release(slots, len(msgs))
			if err := sqsForward(ctx, c, o, msgs, calls); err != nil && ctx.Err() == nil {
				log.Warn("forwarding a batch failed; its messages come back when their visibility ends", "err", err)
			}
		})
	}
}

// sqsMeta is the part of the bridge's gobridge.envelope attribute that
// -bridge-ids sends: the message ID and the creation time in Unix
// nanoseconds.
type sqsMeta struct {
	ID        string `json:"id"`
	CreatedAt int64  `json:"c"`
}

// sqsEntries are the send entries for msgs: the body alone, plus with
// -bridge-ids (or -bridge-props, -bridge-minimal) the bridge's metadata
// attribute holding the source's message ID and a creation time, and
// with -bridge-headers (or -bridge-props) the x-bridge.correlation-id
// attribute, as the bridge's SQS sender writes them.
func sqsEntries(o options, msgs []types.Message, now time.Time) []types.SendMessageBatchRequestEntry {
	entries := make([]types.SendMessageBatchRequestEntry, len(msgs))
	for i, m := range msgs {
		e := types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: m.Body}
		id := aws.ToString(m.MessageId)
		if o.sendsIDs() || o.sendsHeaders() {
			e.MessageAttributes = make(map[string]types.MessageAttributeValue, 2)
		}
		if o.sendsIDs() {
			meta, _ := json.Marshal(sqsMeta{ID: id, CreatedAt: now.UnixNano()}) // a string and an int64: cannot fail
			e.MessageAttributes["gobridge.envelope"] = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(string(meta))}
		}
		if o.sendsHeaders() {
			e.MessageAttributes["x-bridge.correlation-id"] = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(id)}
		}
		entries[i] = e
	}
	return entries
}

// sqsForward sends msgs to the target and deletes from the source those
// whose send succeeded.
func sqsForward(ctx context.Context, c *sqs.Client, o options, msgs []types.Message, calls *sqsCalls) error {
	entries := sqsEntries(o, msgs, time.Now())
	calls.send.Add(1)
	out, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(o.dst), Entries: entries})
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	failed := map[string]bool{}
	for _, f := range out.Failed {
		failed[aws.ToString(f.Id)] = true
	}
	del := make([]types.DeleteMessageBatchRequestEntry, 0, len(msgs))
	for i, m := range msgs {
		if id := strconv.Itoa(i); !failed[id] {
			del = append(del, types.DeleteMessageBatchRequestEntry{Id: aws.String(id), ReceiptHandle: m.ReceiptHandle})
		}
	}
	if len(del) == 0 {
		return errors.New("every entry of the send batch failed")
	}
	calls.delete.Add(1)
	dout, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(o.src), Entries: del})
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	calls.moved.Add(int64(len(del) - len(dout.Failed)))
	if len(out.Failed)+len(dout.Failed) > 0 {
		return fmt.Errorf("%d sends and %d deletes failed", len(out.Failed), len(dout.Failed))
	}
	return nil
}

func release(slots chan struct{}, n int) {
	for range n {
		<-slots
	}
}
