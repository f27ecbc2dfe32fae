package dynamodb

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// newClient builds the SDK client from c: the default chain for whatever
// c leaves empty, static credentials when given, the endpoint override,
// the attempt bound, the capacity middleware and the caller's adjustments.
func newClient(ctx context.Context, c Config, o *options, meter *capacityMeter) (*dynamodb.Client, error) {
	var loads []func(*awsconfig.LoadOptions) error
	if c.Region != "" {
		loads = append(loads, awsconfig.WithRegion(c.Region))
	}
	if c.AccessKeyID != "" {
		loads = append(loads, awsconfig.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, c.SessionToken)))
	}
	loads = append(loads, awsconfig.WithRetryMaxAttempts(c.MaxAttempts))
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx, loads...)
	if err != nil {
		return nil, fault.ErrInvalidConfig.WithMessage("dynamodb store: loading the AWS configuration").Wrap(err)
	}
	if awsCfg.Region == "" {
		return nil, fault.ErrInvalidConfig.WithMessage("dynamodb store: region: none set and none in the environment or shared configuration")
	}
	fns := []func(*dynamodb.Options){func(opt *dynamodb.Options) {
		if c.Endpoint != "" {
			opt.BaseEndpoint = aws.String(c.Endpoint)
		}
		opt.APIOptions = append(opt.APIOptions, meter.middleware)
	}}
	return dynamodb.NewFromConfig(awsCfg, append(fns, o.client...)...), nil
}
