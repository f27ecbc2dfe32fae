package main

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
)

// TestWirePath drives the handler with the SDK over HTTP: a table is
// created, its TTL set and described, and an item written conditionally
// twice, the second time refused.
func TestWirePath(t *testing.T) {
	srv := httptest.NewServer(newHandler())
	t.Cleanup(srv.Close)
	api := dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: aws.AnonymousCredentials{},
	})
	ctx := t.Context()
	_, err := api.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("t"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	if _, err := api.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("t"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatalf("UpdateTimeToLive: %v", err)
	}
	desc, err := api.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("t")})
	if err != nil {
		t.Fatalf("DescribeTimeToLive: %v", err)
	}
	got := [2]string{string(desc.TimeToLiveDescription.TimeToLiveStatus), aws.ToString(desc.TimeToLiveDescription.AttributeName)}
	if diff := cmp.Diff([2]string{"ENABLED", "ttl"}, got); diff != "" {
		t.Errorf("TTL description (-want +got):\n%s", diff)
	}
	put := &dynamodb.PutItemInput{TableName: aws.String("t"),
		Item:                map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "k"}},
		ConditionExpression: aws.String("attribute_not_exists(pk)")}
	if _, err := api.PutItem(ctx, put); err != nil {
		t.Fatalf("first PutItem: %v", err)
	}
	var ccf *types.ConditionalCheckFailedException
	if _, err := api.PutItem(ctx, put); !errorsAs(err, &ccf) {
		t.Errorf("second conditional PutItem = %v, want ConditionalCheckFailedException", err)
	}
}

func errorsAs(err error, target **types.ConditionalCheckFailedException) bool {
	return err != nil && errors.As(err, target)
}
