package sqsio

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Prepare creates each named queue unless it exists, empties it, and
// returns the queues' URLs in the order of names.
func Prepare(ctx context.Context, c *sqs.Client, names ...string) ([]string, error) {
	urls := make([]string, 0, len(names))
	for _, name := range names {
		out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
		if err != nil {
			return nil, fmt.Errorf("sqsio: create queue %s: %w", name, err)
		}
		u := aws.ToString(out.QueueUrl)
		if _, err := c.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(u)}); err != nil {
			return nil, fmt.Errorf("sqsio: purge queue %s: %w", name, err)
		}
		urls = append(urls, u)
	}
	return urls, nil
}
