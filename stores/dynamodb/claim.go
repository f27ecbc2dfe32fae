package dynamodb

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// A page of a claim's query reads twice the limit (at most maxClaimPage
// items): room for records other claimers hold or take meanwhile, while a
// query bills every item it reads, filtered out or not.
const maxClaimPage = 1000

// Expressions of the claim: a record is claimable when it is stored, due, unclaimed or claimed longer ago than the stale-claim
// age, and not stamped by a newer token.
const (
	claimableFilter = "na <= :now AND (attribute_not_exists(cu) OR cu <= :now)"
	claimCondition  = "attribute_exists(pk) AND " + claimableFilter + " AND (attribute_not_exists(cv) OR cv <= :v)"
	claimUpdate     = "SET cu = :until, cv = :v, fa = if_not_exists(fa, :now) ADD cc :one"
)

// Claim checks tok against the partition's fence, reads due candidates
// in sequence order with a consistent query, and claims each with a
// conditional update that stamps the claim's deadline and tok's version
// and raises ClaimCount. An update whose condition fails lost the record
// to another claimer and is skipped, so two Claims never return the same
// record. The records come back in sequence order. Each record is its own
// durable write; when a request fails after some records were claimed,
// Claim returns those and logs the failure.
func (s *Store) Claim(ctx context.Context, partition string, tok ports.LeaseToken, limit int) ([]ports.OutboxRecord, error) {
	if limit <= 0 {
		return nil, nil
	}
	ctx = withOp(ctx, opClaim)
	pk := pkPartition + partition
	if err := s.fence(ctx, pk, tok); err != nil {
		return nil, err
	}
	now := s.clock.Now().UnixNano()
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.tables.outbox),
		KeyConditionExpression:    aws.String("pk = :pk AND sk > :after"),
		FilterExpression:          aws.String(claimableFilter),
		ProjectionExpression:      aws.String(attrSK),
		ExpressionAttributeValues: values(":pk", avS(pk), ":after", avS(outboxMetaSK), ":now", avS(timeString(now))),
		ConsistentRead:            aws.Bool(true),
		Limit:                     aws.Int32(int32(min(2*limit, maxClaimPage))),
	}
	var (
		got  []item
		fail error
	)
	for len(got) < limit && fail == nil {
		out, err := s.api.Query(ctx, in)
		if err != nil {
			fail = classify("Query", err)
			break
		}
		cands := make([]string, len(out.Items))
		for i, it := range out.Items {
			cands[i] = getS(it, attrSK)
		}
		for len(cands) > 0 && len(got) < limit && fail == nil {
			n := min(limit-len(got), len(cands))
			var claimed []item
			claimed, fail = s.claimItems(ctx, pk, cands[:n], tok, now)
			got = append(got, claimed...)
			cands = cands[n:]
		}
		if !nextPage(in, out.LastEvaluatedKey) {
			break
		}
	}
	if fail != nil && len(got) == 0 {
		return nil, fail
	}
	if fail != nil {
		s.log.Warn("dynamodb store: claim stopped early", "partition", partition, "claimed", len(got), "error", fail)
	}
	slices.SortFunc(got, func(a, b item) int { return cmp.Compare(getS(a, attrSK), getS(b, attrSK)) })
	recs := make([]ports.OutboxRecord, 0, len(got))
	for _, it := range got {
		r, err := recordOf(it)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// claimItems claims the records seqs of pk concurrently, at most
// claimConcurrency at a time, and returns the ones it won.
func (s *Store) claimItems(ctx context.Context, pk string, sks []string, tok ports.LeaseToken, now int64) ([]item, error) {
	vals := values(":now", avS(timeString(now)), ":until", avS(timeString(now+int64(s.staleClaimAge))),
		":v", avN(int64(tok.Version)), ":one", avN(1))
	won := make([]item, len(sks))
	errs := make([]error, len(sks))
	sem := make(chan struct{}, s.claimConcurrency)
	var wg sync.WaitGroup
	for i, sk := range sks {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName:                 aws.String(s.tables.outbox),
				Key:                       keyS(pk, sk),
				UpdateExpression:          aws.String(claimUpdate),
				ConditionExpression:       aws.String(claimCondition),
				ExpressionAttributeValues: vals,
				ReturnValues:              types.ReturnValueAllNew,
			})
			switch {
			case isConditionFailed(err):
			case err != nil:
				errs[i] = classify("UpdateItem (claim)", err)
			default:
				won[i] = out.Attributes
			}
		})
	}
	wg.Wait()
	var out []item
	for _, it := range won {
		if it != nil {
			out = append(out, it)
		}
	}
	for _, err := range errs {
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// recordOf rebuilds a record from its item.
func recordOf(it item) (ports.OutboxRecord, error) {
	env, err := envelopeOf(it)
	if err != nil {
		return ports.OutboxRecord{}, err
	}
	partition := getS(it, attrPK)[len(pkPartition):]
	id := getS(it, attrCallerID)
	if id == "" {
		id = formatRecordID(partition, getS(it, attrSK))
	}
	return ports.OutboxRecord{
		ID:             id,
		Partition:      partition,
		RouteID:        getS(it, attrRoute),
		BindingID:      getS(it, attrBinding),
		Address:        getS(it, attrAddress),
		Envelope:       env,
		ReplayCount:    int(getN(it, attrReplays)),
		ClaimCount:     int(getN(it, attrClaims)),
		LastError:      getS(it, attrLastError),
		CreatedAt:      getTime(it, attrCreated),
		FirstAttemptAt: getTime(it, attrFirstTry),
		NextAttemptAt:  getTime(it, attrNextTry),
	}, nil
}

// Depth counts the partition's records (completed ones are deleted) with
// a consistent query that returns counts only.
func (s *Store) Depth(ctx context.Context, partition string) (int, error) {
	ctx = withOp(ctx, opDepth)
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.tables.outbox),
		KeyConditionExpression:    aws.String("pk = :pk AND sk > :after"),
		ExpressionAttributeValues: values(":pk", avS(pkPartition+partition), ":after", avS(outboxMetaSK)),
		Select:                    types.SelectCount,
		ConsistentRead:            aws.Bool(true),
	}
	n := 0
	for {
		out, err := s.api.Query(ctx, in)
		if err != nil {
			return 0, classify("Query (depth)", err)
		}
		n += int(out.Count)
		if !nextPage(in, out.LastEvaluatedKey) {
			return n, nil
		}
	}
}

// nextPage sets up the query for the page after last, the last evaluated
// key, and reports whether there is one. It restarts with the key
// condition's ":after" bound moved to last's sort key rather than with
// ExclusiveStartKey: the same items on DynamoDB, and correct on minidyn,
// which needs the start key's item to still exist and spells numbers
// differently in the keys it returns. minidyn also counts items outside
// the key condition against Limit when there is a filter, and may return
// one of those as last: an earlier one means its scan has not reached the
// query's items yet, and the next page starts after it; a later partition
// means the scan is past them. DynamoDB never returns such a key.
func nextPage(in *dynamodb.QueryInput, last item) bool {
	if len(last) == 0 {
		return false
	}
	pk, sk := getS(last, attrPK), canonicalSK(last[attrSK])
	want := getS(in.ExpressionAttributeValues, ":pk")
	switch {
	case pk == want && skAfter(sk, in.ExpressionAttributeValues[":after"]):
		in.ExpressionAttributeValues[":after"] = sk
		in.ExclusiveStartKey = nil
	case pk <= want:
		in.ExclusiveStartKey = item{attrPK: avS(pk), attrSK: sk}
	default:
		return false
	}
	return true
}

// canonicalSK spells a sort key as the store writes it: a number
// zero-padded, a string as it is.
func canonicalSK(v types.AttributeValue) types.AttributeValue {
	if n, ok := v.(*types.AttributeValueMemberN); ok {
		if x, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
			return avSK(x)
		}
	}
	return v
}

// skAfter reports whether sort key a comes after b.
func skAfter(a, b types.AttributeValue) bool {
	as, aok := a.(*types.AttributeValueMemberS)
	bs, bok := b.(*types.AttributeValueMemberS)
	if aok && bok {
		return as.Value > bs.Value
	}
	return getN(item{"v": a}, "v") > getN(item{"v": b}, "v")
}
