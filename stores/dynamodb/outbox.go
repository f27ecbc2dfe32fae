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

// Outbox record attributes besides the envelope's (see envelope.go).
const (
	attrCallerID    = "id" // the caller's ID; absent for store-made IDs
	attrRoute       = "rt"
	attrBinding     = "bd"
	attrAddress     = "ad"
	attrReplays     = "rc"
	attrClaims      = "cc"
	attrLastError   = "le"
	attrCreated     = "cr" // Unix ns
	attrFirstTry    = "fa" // Unix ns; set by the first claim
	attrNextTry     = "na" // Unix ns
	attrClaimUntil  = "cu" // Unix ns; absent when unclaimed
	attrClaimVer    = "cv" // highest token version that claimed or replayed it
	attrFence       = "fv"
	attrIndexPK     = "tp" // index item: the record's partition key
	attrIndexSK     = "ts" // index item: the record's sort key
	maxLastErrorLen = 4096
)

// Persist stores recs under sort keys from the Store's sequencer (see
// ids.go). Records whose IDs the store makes go out with BatchWriteItem
// (25 per call), unconditional puts that cannot clash because no other
// Store makes the same sort keys. A batch
// with caller-chosen IDs goes out as one transaction of conditional puts
// (with an index item per caller ID), so a duplicate fails the whole
// batch with DUPLICATE_RECORD. Batches too large for one transaction, and
// batches whose BatchWriteItem fails half-way, are undone item by item on
// failure (best effort: see the README).
func (s *Store) Persist(ctx context.Context, recs []ports.OutboxRecord) error {
	if len(recs) == 0 {
		return nil
	}
	ctx = withOp(ctx, opPersist)
	transact, err := s.checkBatch(ctx, recs)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	sks := s.seq.next(now, len(recs))
	items := make([]item, 0, len(recs))
	var indexes []item
	for i := range recs {
		r := &recs[i]
		next := r.NextAttemptAt
		if next.IsZero() {
			next = now
		}
		it := s.recordItem(r, sks[i], now, next)
		if err := checkSize(it, fmt.Sprintf("record %d", i)); err != nil {
			return err
		}
		items = append(items, it)
		if r.ID != "" {
			indexes = append(indexes, item{attrPK: avS(pkIndex + r.ID), attrSK: avS(outboxMetaSK),
				attrIndexPK: it[attrPK], attrIndexSK: it[attrSK]})
		}
	}
	if transact {
		err = s.persistTransact(ctx, items, indexes)
	} else {
		err = s.persistBatch(ctx, items)
	}
	if err != nil {
		return err
	}
	for i := range recs {
		r := &recs[i]
		if r.ID == "" {
			r.ID = formatRecordID(r.Partition, sks[i])
		}
		r.CreatedAt = now
		if r.NextAttemptAt.IsZero() {
			r.NextAttemptAt = now
		}
	}
	return nil
}

// checkBatch refuses records the store cannot take and duplicate caller
// IDs; it reports whether the batch needs a transaction.
func (s *Store) checkBatch(ctx context.Context, recs []ports.OutboxRecord) (bool, error) {
	seen := map[string]bool{}
	for i := range recs {
		r := &recs[i]
		if r.Envelope == nil {
			return false, fault.ErrInvalidPayload.WithMessage(fmt.Sprintf("dynamodb store: record %d has no envelope", i))
		}
		if r.Partition == "" {
			return false, fault.ErrInvalidPayload.WithMessage(fmt.Sprintf("dynamodb store: record %d has no partition", i))
		}
		if r.ID == "" {
			continue
		}
		if seen[r.ID] {
			return false, fault.ErrDuplicateRecord.WithMessage(fmt.Sprintf("dynamodb store: record ID %q twice in one batch", clip(r.ID)))
		}
		seen[r.ID] = true
		if part, sk, ok := parseRecordID(r.ID); ok {
			// The store's own form: the ID names an item, which must
			// be the record that holds it.
			out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.tables.outbox),
				Key: keyS(pkPartition+part, sk), ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String(attrPK)})
			if err != nil {
				return false, classify("GetItem", err)
			}
			if out.Item != nil {
				return false, fault.ErrDuplicateRecord.WithMessage(fmt.Sprintf("dynamodb store: record %q is already stored", r.ID))
			}
			return false, fault.ErrInvalidPayload.WithMessage(fmt.Sprintf(
				"dynamodb store: record ID %q has the form of the store's own IDs but names no record", r.ID))
		}
	}
	return len(seen) > 0, nil
}

// recordItem is the stored form of r at sort key sk.
func (s *Store) recordItem(r *ports.OutboxRecord, sk string, now, next time.Time) item {
	it := item{attrPK: avS(pkPartition + r.Partition), attrSK: avS(sk)}
	if r.ID != "" {
		it[attrCallerID] = avS(r.ID)
	}
	putNonEmpty(it, attrRoute, r.RouteID)
	putNonEmpty(it, attrBinding, r.BindingID)
	putNonEmpty(it, attrAddress, r.Address)
	putNonEmpty(it, attrLastError, truncate(r.LastError))
	if r.ReplayCount != 0 {
		it[attrReplays] = avN(int64(r.ReplayCount))
	}
	if r.ClaimCount != 0 {
		it[attrClaims] = avN(int64(r.ClaimCount))
	}
	if !r.FirstAttemptAt.IsZero() {
		it[attrFirstTry] = avTime(r.FirstAttemptAt)
	}
	it[attrCreated] = avTime(now)
	it[attrNextTry] = avTime(next)
	putEnvelope(it, r.Envelope)
	if s.compress {
		shrink(it)
	}
	return it
}

func putNonEmpty(it item, name, v string) {
	if v != "" {
		it[name] = avS(v)
	}
}

// truncate bounds a stored error message, at a rune boundary.
func truncate(s string) string {
	if len(s) <= maxLastErrorLen {
		return s
	}
	cut := maxLastErrorLen
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut]
}

// persistBatch writes records whose sequence numbers nobody else holds.
func (s *Store) persistBatch(ctx context.Context, items []item) error {
	reqs := make([]types.WriteRequest, len(items))
	for i, it := range items {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
	}
	if err := s.writeBatch(ctx, s.tables.outbox, reqs); err != nil {
		s.deleteKeys(ctx, s.tables.outbox, keysOf(items))
		return err
	}
	return nil
}

// persistTransact writes records with caller IDs as conditional puts,
// with their index items, 100 actions per transaction.
func (s *Store) persistTransact(ctx context.Context, items, indexes []item) error {
	acts := make([]types.TransactWriteItem, 0, len(items)+len(indexes))
	for _, it := range append(append([]item(nil), indexes...), items...) {
		acts = append(acts, types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String(s.tables.outbox), Item: it,
			ConditionExpression: aws.String("attribute_not_exists(pk)")}})
	}
	var done []item
	for start := 0; start < len(acts); start += maxTransact {
		chunk := acts[start:min(start+maxTransact, len(acts))]
		_, err := s.api.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: chunk})
		if err != nil {
			s.deleteKeys(ctx, s.tables.outbox, done)
			if conditionCancelled(err) {
				return fault.ErrDuplicateRecord.WithMessage("dynamodb store: a record ID of the batch is already stored").Wrap(err)
			}
			return classify("TransactWriteItems", err)
		}
		for _, a := range chunk {
			done = append(done, keyOf(a.Put.Item))
		}
	}
	return nil
}

// conditionCancelled reports whether a transaction failed on a condition.
func conditionCancelled(err error) bool {
	for _, r := range cancelReasons(err) {
		if r == "ConditionalCheckFailed" {
			return true
		}
	}
	return false
}

func keyOf(it item) item { return item{attrPK: it[attrPK], attrSK: it[attrSK]} }

func keysOf(items []item) []item {
	out := make([]item, len(items))
	for i, it := range items {
		out[i] = keyOf(it)
	}
	return out
}
