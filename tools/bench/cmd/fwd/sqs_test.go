package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestSQSEntries(t *testing.T) {
	now := time.Unix(0, 1700000000123456789)
	in := []types.Message{{MessageId: aws.String("m-1"), Body: aws.String("b")}}
	str := func(s string) types.MessageAttributeValue {
		return types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(s)}
	}
	meta := str(`{"id":"m-1","c":1700000000123456789}`)
	tests := []struct {
		name string
		o    options
		want map[string]types.MessageAttributeValue
	}{
		{"body only", options{}, nil},
		{"props", options{bridgeProps: true}, map[string]types.MessageAttributeValue{"gobridge.envelope": meta, "x-bridge.correlation-id": str("m-1")}},
		{"ids", options{bridgeIDs: true}, map[string]types.MessageAttributeValue{"gobridge.envelope": meta}},
		{"minimal", options{bridgeMinimal: true}, map[string]types.MessageAttributeValue{"gobridge.envelope": meta}},
		{"headers", options{bridgeHeaders: true}, map[string]types.MessageAttributeValue{"x-bridge.correlation-id": str("m-1")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sqsEntries(tt.o, in, now)
			want := []types.SendMessageBatchRequestEntry{{Id: aws.String("0"), MessageBody: aws.String("b"), MessageAttributes: tt.want}}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(types.SendMessageBatchRequestEntry{}, types.MessageAttributeValue{})); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
}

// An ID that JSON must escape still makes a metadata attribute that
// decodes to it.
func TestSQSEntriesEscapesID(t *testing.T) {
	in := []types.Message{{MessageId: aws.String(`a"b\c`), Body: aws.String("b")}}
	got := sqsEntries(options{bridgeIDs: true}, in, time.Unix(0, 5))
	var meta sqsMeta
	if err := json.Unmarshal([]byte(aws.ToString(got[0].MessageAttributes["gobridge.envelope"].StringValue)), &meta); err != nil {
		t.Fatalf("metadata attribute is not JSON: %v", err)
	}
	if diff := cmp.Diff(sqsMeta{ID: `a"b\c`, CreatedAt: 5}, meta); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
}
