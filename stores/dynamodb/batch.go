package dynamodb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// Limits of DynamoDB's batch and transaction calls.
const (
	maxBatchWrite = 25
	maxTransact   = 100
)

// Backoff of unprocessed batch items: the SDK retries failed requests on
// its own, but a request that succeeded with items left over is ours to
// repeat.
const (
	unprocessedFirstWait = 20 * time.Millisecond
	unprocessedMaxWait   = time.Second
	unprocessedMaxTries  = 10
)

// writeBatch writes reqs to table with BatchWriteItem, 25 per call, and
// sends what DynamoDB leaves unprocessed again with exponential backoff.
// When it fails, some chunks may be written already.
func (s *Store) writeBatch(ctx context.Context, table string, reqs []types.WriteRequest) error {
	for start := 0; start < len(reqs); start += maxBatchWrite {
		chunk := reqs[start:min(start+maxBatchWrite, len(reqs))]
		if err := s.writeChunk(ctx, table, chunk); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) writeChunk(ctx context.Context, table string, chunk []types.WriteRequest) error {
	pending := map[string][]types.WriteRequest{table: chunk}
	wait := unprocessedFirstWait
	for try := 1; ; try++ {
		out, err := s.api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
		if err != nil {
			return classify("BatchWriteItem", err)
		}
		left := out.UnprocessedItems[table]
		if len(left) == 0 {
			return nil
		}
		if try == unprocessedMaxTries {
			return fault.ErrThrottled.WithMessage(fmt.Sprintf(
				"dynamodb store: BatchWriteItem left %d items unprocessed after %d tries", len(left), try)).
				WithRetryAfter(throttleRetryAfter)
		}
		s.log.Debug("dynamodb store: retrying unprocessed items", "table", table, "items", len(left), "try", try)
		pending = map[string][]types.WriteRequest{table: left}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return classify("BatchWriteItem", ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, unprocessedMaxWait)
	}
}

// deleteKeys removes items by key, best effort, for undoing a write that
// failed half-way.
func (s *Store) deleteKeys(ctx context.Context, table string, keys []item) {
	if len(keys) == 0 {
		return
	}
	reqs := make([]types.WriteRequest, len(keys))
	for i, k := range keys {
		reqs[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
	}
	ctx = context.WithoutCancel(ctx)
	if err := s.writeBatch(ctx, table, reqs); err != nil {
		s.log.Warn("dynamodb store: could not undo a failed write; its items stay", "table", table, "items", len(keys), "error", err)
	}
}
