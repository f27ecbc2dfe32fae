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

// dlqMetaSK is the sort key of the DLQ's counter and of index items;
// entries start at 1.
const dlqMetaSK = 0

// attrSeq is the DLQ counter's attribute.
const attrSeq = "seq"

// DLQ entry attributes besides the envelope's and the ones shared with
// outbox records (id, rt, bd, ad).
const (
	attrErrClass  = "xc"
	attrErrCode   = "xo"
	attrErrMsg    = "xm"
	attrCategory  = "ct"
	attrAttempts  = "at"
	attrFirstFail = "ff" // Unix ns
	attrLastFail  = "lf" // Unix ns
)

// Write stores entry under the next number of the DLQ's counter, which
// gives entries their write order across every bridge sharing the table.
// An entry with a caller's ID goes in with an index item in one
// transaction of conditional puts; an ID already stored fails with
// DUPLICATE_RECORD.
func (s *Store) Write(ctx context.Context, e ports.DLQEntry) error {
	ctx = withOp(ctx, opDLQ)
	if e.Envelope == nil {
		return fault.ErrInvalidPayload.WithMessage("dynamodb store: DLQ entry has no envelope")
	}
	if seq, ok := parseDLQID(e.ID); ok {
		if _, err := s.getEntry(ctx, seq); err == nil {
			return fault.ErrDuplicateRecord.WithMessage(fmt.Sprintf("dynamodb store: DLQ entry %q is already stored", e.ID))
		}
		return fault.ErrInvalidPayload.WithMessage(fmt.Sprintf(
			"dynamodb store: DLQ entry ID %q has the form of the store's own IDs but names no entry", e.ID))
	}
	out, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.tables.dlq), Key: keyN(pkDLQCount, dlqMetaSK),
		UpdateExpression:          aws.String("ADD #seq :one"),
		ExpressionAttributeNames:  map[string]string{"#seq": attrSeq},
		ExpressionAttributeValues: values(":one", avN(1)),
		ReturnValues:              types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return classify("UpdateItem (DLQ sequence)", err)
	}
	it := s.entryItem(&e, getN(out.Attributes, attrSeq))
	if err := checkSize(it, "the DLQ entry"); err != nil {
		return err
	}
	notThere := aws.String("attribute_not_exists(pk)")
	if e.ID == "" {
		_, err = s.api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.tables.dlq), Item: it, ConditionExpression: notThere})
		return classify("PutItem (DLQ)", err)
	}
	idx := item{attrPK: avS(pkIndex + e.ID), attrSK: avSK(dlqMetaSK), attrIndexSK: it[attrSK]}
	if ttl, ok := it[attrTTL]; ok {
		idx[attrTTL] = ttl
	}
	_, err = s.api.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(s.tables.dlq), Item: idx, ConditionExpression: notThere}},
		{Put: &types.Put{TableName: aws.String(s.tables.dlq), Item: it, ConditionExpression: notThere}},
	}})
	if conditionCancelled(err) {
		return fault.ErrDuplicateRecord.WithMessage(fmt.Sprintf("dynamodb store: DLQ entry %q is already stored", clip(e.ID)))
	}
	return classify("TransactWriteItems (DLQ)", err)
}

// entryItem is the stored form of e as entry seq.
func (s *Store) entryItem(e *ports.DLQEntry, seq int64) item {
	it := item{attrPK: avS(pkDLQEntry), attrSK: avSK(seq)}
	putNonEmpty(it, attrCallerID, e.ID)
	putNonEmpty(it, attrRoute, e.RouteID)
	putNonEmpty(it, attrBinding, e.BindingID)
	putNonEmpty(it, attrAddress, e.Address)
	putNonEmpty(it, attrErrClass, e.ErrorClass)
	putNonEmpty(it, attrErrCode, e.ErrorCode)
	putNonEmpty(it, attrErrMsg, e.ErrorMessage)
	putNonEmpty(it, attrCategory, string(e.Category))
	it[attrAttempts] = avN(int64(e.Attempts))
	it[attrFirstFail] = avTime(e.FirstFailureAt)
	it[attrLastFail] = avTime(e.LastFailureAt)
	if s.dlqRetention > 0 {
		it[attrTTL] = avN(s.clock.Now().Add(s.dlqRetention).Add(time.Second - 1).Unix())
	}
	putEnvelope(it, e.Envelope)
	if s.compress {
		shrink(it)
	}
	return it
}

// entryOf rebuilds an entry from its item.
func entryOf(it item) (ports.DLQEntry, error) {
	env, err := envelopeOf(it)
	if err != nil {
		return ports.DLQEntry{}, err
	}
	id := getS(it, attrCallerID)
	if id == "" {
		id = formatDLQID(getN(it, attrSK))
	}
	return ports.DLQEntry{
		ID: id, Envelope: env,
		RouteID: getS(it, attrRoute), BindingID: getS(it, attrBinding), Address: getS(it, attrAddress),
		ErrorClass: getS(it, attrErrClass), ErrorCode: getS(it, attrErrCode), ErrorMessage: getS(it, attrErrMsg),
		Category:       ports.DLQCategory(getS(it, attrCategory)),
		Attempts:       int(getN(it, attrAttempts)),
		FirstFailureAt: getTime(it, attrFirstFail),
		LastFailureAt:  getTime(it, attrLastFail),
	}, nil
}

// locateEntry returns the sequence number of entry id; found is false
// when a caller's ID has no index item.
func (s *Store) locateEntry(ctx context.Context, id string) (seq int64, viaIndex, found bool, err error) {
	if seq, ok := parseDLQID(id); ok {
		return seq, false, true, nil
	}
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.tables.dlq), Key: keyN(pkIndex+id, dlqMetaSK), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return 0, false, false, classify("GetItem (DLQ index)", err)
	}
	if out.Item == nil {
		return 0, false, false, nil
	}
	return getN(out.Item, attrIndexSK), true, true, nil
}

func (s *Store) getEntry(ctx context.Context, seq int64) (item, error) {
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.tables.dlq), Key: keyN(pkDLQEntry, seq), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, classify("GetItem (DLQ)", err)
	}
	if out.Item == nil {
		return nil, fault.ErrNotFound.WithMessage(fmt.Sprintf("dynamodb store: no DLQ entry %q", formatDLQID(seq)))
	}
	return out.Item, nil
}

// Get returns entry id, or NOT_FOUND.
func (s *Store) Get(ctx context.Context, id string) (ports.DLQEntry, error) {
	ctx = withOp(ctx, opDLQ)
	seq, _, found, err := s.locateEntry(ctx, id)
	if err != nil {
		return ports.DLQEntry{}, err
	}
	if !found {
		return ports.DLQEntry{}, dlqNotFound(id)
	}
	it, err := s.getEntry(ctx, seq)
	if err != nil {
		return ports.DLQEntry{}, err
	}
	return entryOf(it)
}

// Delete removes entry id with a delete conditional on the entry being
// there, so of two operators redriving or deleting one entry only one
// succeeds; the other gets NOT_FOUND.
func (s *Store) Delete(ctx context.Context, id string) error {
	ctx = withOp(ctx, opDLQ)
	seq, viaIndex, found, err := s.locateEntry(ctx, id)
	if err != nil {
		return err
	}
	if !found {
		return dlqNotFound(id)
	}
	deleted, err := s.deleteEntry(ctx, seq, id, viaIndex)
	if err == nil && !deleted {
		return dlqNotFound(id)
	}
	return err
}

// deleteEntry deletes entry seq if it is there, with its index item for
// a caller's ID; deleted is false when it was gone already.
func (s *Store) deleteEntry(ctx context.Context, seq int64, id string, viaIndex bool) (bool, error) {
	there := aws.String("attribute_exists(pk)")
	if !viaIndex {
		_, err := s.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(s.tables.dlq), Key: keyN(pkDLQEntry, seq), ConditionExpression: there})
		if isConditionFailed(err) {
			return false, nil
		}
		return err == nil, classify("DeleteItem (DLQ)", err)
	}
	_, err := s.api.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String(s.tables.dlq), Key: keyN(pkDLQEntry, seq), ConditionExpression: there}},
		{Delete: &types.Delete{TableName: aws.String(s.tables.dlq), Key: keyN(pkIndex+id, dlqMetaSK)}},
	}})
	if conditionCancelled(err) {
		return false, nil
	}
	return err == nil, classify("TransactWriteItems (DLQ delete)", err)
}

func dlqNotFound(id string) error {
	return fault.ErrNotFound.WithMessage(fmt.Sprintf("dynamodb store: no DLQ entry %q", clip(id)))
}
