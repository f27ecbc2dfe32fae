package sqs

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/schemas"
	"github.com/aws/smithy-go/transport/http/protocol/awsquery"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// API is the part of the SDK client the transport uses. *sqs.Client
// implements it; tests may wrap it to count or fail calls.
type API interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
	ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
	GetQueueUrl(ctx context.Context, in *sqs.GetQueueUrlInput, opts ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error)
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, opts ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

// NewClient builds an SDK client from c: the default chain for whatever c
// leaves empty, static credentials when given, the endpoint override and,
// for ProtocolQuery, the Query protocol that emulators speak.
func NewClient(ctx context.Context, c ClientConfig) (*sqs.Client, error) {
	c = c.WithDefaults()
	var loads []func(*awsconfig.LoadOptions) error
	if c.Region != "" {
		loads = append(loads, awsconfig.WithRegion(c.Region))
	}
	if c.AccessKeyID != "" {
		loads = append(loads, awsconfig.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, c.SessionToken)))
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx, loads...)
	if err != nil {
		return nil, fault.ErrInvalidConfig.WithMessage("sqs: loading the AWS configuration").Wrap(err)
	}
	return sqs.NewFromConfig(awsCfg, func(o *sqs.Options) {
		o.HTTPClient = keepIdleConns(o.HTTPClient)
		if c.Endpoint != "" {
			o.BaseEndpoint = aws.String(c.Endpoint)
		}
		if c.Protocol == ProtocolQuery {
			o.Protocol = awsquery.New(schemas.AmazonSQS)
		}
	}), nil
}

// idleConnsPerHost is how many idle connections to SQS the client keeps
// for reuse. The SDK keeps 10, fewer than the calls a receiver and a
// sender have open at once (up to 10 receives, and the send and delete
// batches of up to max_in_flight messages); every call beyond that would
// close a connection when it ends and open a new one, with a TLS
// handshake, for the next.
const idleConnsPerHost = 64

// keepIdleConns returns c, the SDK's buildable client (the default's
// when c is nil) with room for idleConnsPerHost idle connections. Any
// other client is the caller's choice and is returned as it is.
func keepIdleConns(c aws.HTTPClient) aws.HTTPClient {
	if c == nil {
		c = awshttp.NewBuildableClient()
	}
	b, ok := c.(*awshttp.BuildableClient)
	if !ok {
		return c
	}
	return b.WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConnsPerHost = idleConnsPerHost
		t.MaxIdleConns = max(t.MaxIdleConns, idleConnsPerHost)
	})
}

// isQueueURL tells a queue URL from a queue name.
func isQueueURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

// queueURLs resolves queue names to URLs once each and remembers them.
type queueURLs struct {
	api API
	mu  sync.Mutex
	m   map[string]string
}

func newQueueURLs(api API) *queueURLs { return &queueURLs{api: api, m: map[string]string{}} }

// resolve returns the URL of a queue given by URL or by name.
func (q *queueURLs) resolve(ctx context.Context, queue string) (string, error) {
	if isQueueURL(queue) {
		return queue, nil
	}
	q.mu.Lock()
	u, ok := q.m[queue]
	q.mu.Unlock()
	if ok {
		return u, nil
	}
	out, err := q.api.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(queue)})
	if err != nil {
		return "", classify("GetQueueUrl "+queue, err)
	}
	u = aws.ToString(out.QueueUrl)
	q.mu.Lock()
	q.m[queue] = u
	q.mu.Unlock()
	return u, nil
}
