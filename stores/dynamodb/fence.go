package dynamodb

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// fence checks tok against the highest token version partition pk has
// seen, kept in the partition's counter item, and raises the mark when
// tok is higher. A lower version fails with STALE_FENCING_TOKEN. The
// common case, a token equal to the mark, costs one consistent read and
// no write.
//
// The check and the guarded write that follows are two requests, not one
// transaction (which would bill every guarded write twice). The record
// carries its own guard for the gap: a claim stamps it with its token's
// version (cv), and Complete and Replay are conditional on cv not being
// higher than theirs. A token fenced off between the two requests can
// therefore still complete or replay a record that it claimed itself and
// nobody took over; it can never touch a record a newer token claimed.
func (s *Store) fence(ctx context.Context, pk string, tok ports.LeaseToken) error {
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.tables.outbox), Key: keyS(pk, outboxMetaSK), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String(attrFence),
	})
	if err != nil {
		return classify("GetItem (fence)", err)
	}
	mark := uint64(getN(out.Item, attrFence))
	switch {
	case tok.Version < mark:
		s.fenced.add()
		return staleToken(pk, tok, mark)
	case tok.Version == mark:
		return nil
	}
	_, err = s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.tables.outbox),
		Key:                       keyS(pk, outboxMetaSK),
		UpdateExpression:          aws.String("SET fv = :v"),
		ConditionExpression:       aws.String("attribute_not_exists(fv) OR fv <= :v"),
		ExpressionAttributeValues: values(":v", avN(int64(tok.Version))),
	})
	if isConditionFailed(err) {
		s.fenced.add()
		return staleToken(pk, tok, 0)
	}
	return classify("UpdateItem (fence)", err)
}

func staleToken(pk string, tok ports.LeaseToken, mark uint64) error {
	msg := fmt.Sprintf("dynamodb store: partition %q: token version %d", pk[len(pkPartition):], tok.Version)
	if mark > 0 {
		msg += fmt.Sprintf(" is below the highest seen, %d", mark)
	} else {
		msg += " is below a newer token's"
	}
	return fault.ErrStaleFencingToken.WithMessage(msg)
}
