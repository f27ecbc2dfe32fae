package sqsio

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Queue is a queue the harness creates.
type Queue struct {
	Name string
	// Visibility is the queue's visibility timeout, whole seconds (0:
	// the emulator's default, 30s). A short one bounds how long a
	// message stays hidden when the response of the receive that took it
	// is lost, which goaws and the SDK do now and then under load (a
	// receive's body cut off, retried by the SDK with new messages).
	Visibility time.Duration
}

// Prepare creates each queue unless it exists, empties it, and returns
// the queues' URLs in order.
func Prepare(ctx context.Context, c *sqs.Client, queues ...Queue) ([]string, error) {
	urls := make([]string, 0, len(queues))
	for _, q := range queues {
		in := &sqs.CreateQueueInput{QueueName: aws.String(q.Name)}
		if q.Visibility > 0 {
			in.Attributes = map[string]string{"VisibilityTimeout": strconv.Itoa(int(q.Visibility / time.Second))}
		}
		out, err := c.CreateQueue(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("sqsio: create queue %s: %w", q.Name, err)
		}
		u := aws.ToString(out.QueueUrl)
		if _, err := c.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(u)}); err != nil {
			return nil, fmt.Errorf("sqsio: purge queue %s: %w", q.Name, err)
		}
		urls = append(urls, u)
	}
	return urls, nil
}
