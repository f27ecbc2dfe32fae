package dynamodb

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// The subscription ledger keeps one item per durable session in the lease
// table, so that it needs no table of its own: pk is ledgerPrefix plus the
// session key, and attrSubs holds the set as JSON. The bridge's lease names
// start with a word and a slash ("session/", "outbox/"), never with
// ledgerPrefix. One item holds up to DynamoDB's 400 KB, several thousand
// filters.
const (
	ledgerPrefix = "ms|"
	attrSubs     = "subs"
)

// storedSub is one subscription as stored: short names, billed as bytes.
type storedSub struct {
	F string `json:"f"`
	Q byte   `json:"q"`
}

// LoadSubscriptions returns the set last saved for session, ordered by
// filter, with a consistent read; baselined is false when nothing was
// saved for it.
func (s *Store) LoadSubscriptions(ctx context.Context, session string) ([]ports.ManagedSubscription, bool, error) {
	if _, err := ports.CheckSubscriptions(session, nil); err != nil {
		return nil, false, err
	}
	out, err := s.api.GetItem(withOp(ctx, opLedger), &dynamodb.GetItemInput{
		TableName: aws.String(s.tables.lease), Key: item{attrPK: avS(ledgerPrefix + session)}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, false, classify("GetItem (managed subscriptions)", err)
	}
	if out.Item == nil {
		return nil, false, nil
	}
	var stored []storedSub
	if err := json.Unmarshal([]byte(getS(out.Item, attrSubs)), &stored); err != nil {
		return nil, false, fault.ErrInternal.WithMessage(fmt.Sprintf(
			"dynamodb store: the managed subscriptions of %q are not readable: %v", session, err))
	}
	subs := make([]ports.ManagedSubscription, len(stored))
	for i, st := range stored {
		subs[i] = ports.ManagedSubscription{Filter: st.F, QoS: st.Q}
	}
	return subs, true, nil
}

// SaveSubscriptions replaces the set recorded for session with one put.
func (s *Store) SaveSubscriptions(ctx context.Context, session string, subs []ports.ManagedSubscription) error {
	sorted, err := ports.CheckSubscriptions(session, subs)
	if err != nil {
		return err
	}
	stored := make([]storedSub, len(sorted))
	for i, sub := range sorted {
		stored[i] = storedSub{F: sub.Filter, Q: sub.QoS}
	}
	b, err := json.Marshal(stored)
	if err != nil {
		return fault.ErrInternal.Wrap(err)
	}
	_, err = s.api.PutItem(withOp(ctx, opLedger), &dynamodb.PutItemInput{
		TableName: aws.String(s.tables.lease),
		Item:      item{attrPK: avS(ledgerPrefix + session), attrSubs: avS(string(b))},
	})
	return classify("PutItem (managed subscriptions)", err)
}
