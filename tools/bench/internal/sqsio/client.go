// Package sqsio is the harness's SQS side: an SDK client set up for the
// goaws emulator the way the sqs transport sets up its own, queue
// preparation, the load generator, the sink, the harness's private
// emulator and a proxy that counts the calls a forwarder makes.
package sqsio

import (
	"context"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/schemas"
	"github.com/aws/smithy-go/transport/http/protocol/awsquery"
)

// Static settings every harness client uses against the emulator, and the
// ones the bridge's generated configuration names too.
const (
	Region    = "us-east-1"
	AccessKey = "test"
	SecretKey = "test"
)

// idleConns matches the sqs transport's idle connections per host, so
// that neither forwarder reopens connections the other keeps.
const idleConns = 64

// NewClient returns an SDK client for the emulator at endpoint
// (http://host:port): the Query protocol (goaws speaks nothing else),
// static keys, a fixed region, and room for idleConns idle connections,
// as the sqs transport configures its client for `protocol: query`.
func NewClient(ctx context.Context, endpoint string) (*sqs.Client, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx,
		awsconfig.WithRegion(Region),
		awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, "")))
	if err != nil {
		return nil, err
	}
	return sqs.NewFromConfig(cfg, func(o *sqs.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.Protocol = awsquery.New(schemas.AmazonSQS)
		o.HTTPClient = awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.MaxIdleConnsPerHost = idleConns
			t.MaxIdleConns = max(t.MaxIdleConns, idleConns)
		})
	}), nil
}
