package dynamodb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// location is where a record's item is.
type location struct {
	pk       string
	sk       string
	viaIndex bool // a caller's ID: an index item points here
}

// locate finds the item of record id: a store-made ID names it, a
// caller's ID is looked up in its index item. found is false for an ID
// with no index item.
func (s *Store) locate(ctx context.Context, id string) (location, bool, error) {
	if part, sk, ok := parseRecordID(id); ok {
		return location{pk: pkPartition + part, sk: sk}, true, nil
	}
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.tables.outbox), Key: keyS(pkIndex+id, outboxMetaSK), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return location{}, false, classify("GetItem (index)", err)
	}
	if out.Item == nil {
		return location{}, false, nil
	}
	return location{pk: getS(out.Item, attrIndexPK), sk: getS(out.Item, attrIndexSK), viaIndex: true}, true, nil
}

// Complete deletes record id after checking tok against the partition's
// fence. The write is conditional on the record not being
// stamped by a newer token; when it is, Complete fails with
// STALE_FENCING_TOKEN. A record that is gone already is no error.
func (s *Store) Complete(ctx context.Context, id string, tok ports.LeaseToken) error {
	ctx = withOp(ctx, opComplete)
	loc, found, err := s.locate(ctx, id)
	if err != nil || !found {
		return err
	}
	if err := s.fence(ctx, loc.pk, tok); err != nil {
		return err
	}
	v := values(":v", avN(int64(tok.Version)))
	const guard = "attribute_not_exists(cv) OR cv <= :v"
	switch {
	case loc.viaIndex:
		_, err = s.api.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Delete: &types.Delete{TableName: aws.String(s.tables.outbox), Key: keyS(loc.pk, loc.sk),
				ConditionExpression: aws.String("attribute_not_exists(pk) OR " + guard), ExpressionAttributeValues: v}},
			{Delete: &types.Delete{TableName: aws.String(s.tables.outbox), Key: keyS(pkIndex+id, outboxMetaSK)}},
		}})
		if conditionCancelled(err) {
			return s.staleRecord(id, tok)
		}
	default:
		_, err = s.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(s.tables.outbox), Key: keyS(loc.pk, loc.sk),
			ConditionExpression:       aws.String("attribute_not_exists(pk) OR " + guard),
			ExpressionAttributeValues: v,
		})
		if isConditionFailed(err) {
			return s.staleRecord(id, tok)
		}
	}
	return classify("complete", err)
}

// Replay releases record id after a failed attempt: it raises
// ReplayCount, stores cause's message and makes the record due at next,
// conditional on the record being there and not stamped by a newer token
// than tok. It fails with NOT_FOUND for an unknown or completed record and STALE_FENCING_TOKEN for a newer stamp.
func (s *Store) Replay(ctx context.Context, id string, tok ports.LeaseToken, cause error, next time.Time) error {
	ctx = withOp(ctx, opReplay)
	loc, found, err := s.locate(ctx, id)
	if err != nil {
		return err
	}
	if !found {
		return notFound(id)
	}
	if err := s.fence(ctx, loc.pk, tok); err != nil {
		return err
	}
	msg := ""
	if cause != nil {
		msg = truncate(cause.Error())
	}
	// A released claim is the zero time rather than a removed attribute:
	// one update then does it all with SET and ADD.
	v := values(":v", avN(int64(tok.Version)), ":next", avTime(next), ":one", avN(1),
		":err", avS(msg), ":free", avTime(time.Time{}))
	const update = "SET na = :next, cv = :v, le = :err, cu = :free ADD rc :one"
	_, err = s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.tables.outbox), Key: keyS(loc.pk, loc.sk),
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String("attribute_exists(pk) AND (attribute_not_exists(cv) OR cv <= :v)"),
		ExpressionAttributeValues: v,
	})
	if isConditionFailed(err) {
		return s.whyRefused(ctx, loc, id, tok)
	}
	return classify("UpdateItem (replay)", err)
}

// whyRefused tells a replay that found no record (NOT_FOUND) from one
// refused because a newer token stamped the record.
func (s *Store) whyRefused(ctx context.Context, loc location, id string, tok ports.LeaseToken) error {
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.tables.outbox), Key: keyS(loc.pk, loc.sk), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("pk")})
	if err != nil {
		return classify("GetItem", err)
	}
	if out.Item == nil {
		return notFound(id)
	}
	return s.staleRecord(id, tok)
}

func notFound(id string) error {
	return fault.ErrNotFound.WithMessage(fmt.Sprintf("dynamodb store: no outbox record %q", clip(id)))
}

// staleRecord counts and reports a write refused because a newer token
// stamped the record.
func (s *Store) staleRecord(id string, tok ports.LeaseToken) error {
	s.fenced.add()
	return fault.ErrStaleFencingToken.WithMessage(fmt.Sprintf(
		"dynamodb store: record %q was claimed with a newer token than version %d", clip(id), tok.Version))
}
