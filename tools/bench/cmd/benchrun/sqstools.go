package main

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/sqsio"
)

// sqsQueue returns a client for the emulator at endpoint and the URL of
// queue (a URL already, or a name to look up).
func sqsQueue(ctx context.Context, endpoint, queue string) (*sqs.Client, string, error) {
	c, err := sqsio.NewClient(ctx, endpoint)
	if err != nil {
		return nil, "", err
	}
	if strings.HasPrefix(queue, "http://") || strings.HasPrefix(queue, "https://") {
		return c, queue, nil
	}
	out, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(queue)})
	if err != nil {
		return nil, "", err
	}
	return c, aws.ToString(out.QueueUrl), nil
}

// sqsLoadgen is loadgen -proto sqs: N stamped messages to an existing
// queue, in SendMessageBatch calls of 10.
func sqsLoadgen(ctx context.Context, endpoint, queue string, l sqsio.Load) error {
	c, url, err := sqsQueue(ctx, endpoint, queue)
	if err != nil {
		return err
	}
	return sqsio.Publish(ctx, c, url, l)
}

// sqsSinkStart is sink -proto sqs: receive, count and delete from an
// existing queue.
func sqsSinkStart(ctx context.Context, endpoint, queue string, counter *bench.Counter) (sinker, error) {
	c, url, err := sqsQueue(ctx, endpoint, queue)
	if err != nil {
		return nil, err
	}
	return sqsio.StartSink(c, url, counter, 0), nil
}
