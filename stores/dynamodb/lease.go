package dynamodb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Lease item attributes; the key is pk, the lease's name.
const (
	attrOwner    = "ow"
	attrVersion  = "ver" // the fencing token's version; the version attribute of every conditional write
	attrExpires  = "exp" // Unix ns
	attrReleased = "rl"  // present once released
)

// Acquire takes the lease key for owner when nobody holds it: never
// taken, released, expired longer ago than the clock skew by this
// machine's clock, or held by owner itself (a restarted process). The
// write is a put conditional on the version read, so of two contenders
// that read the same state only one wins; the other, and any contender
// facing a live lease of another owner, gets ALREADY_EXISTS. The new
// token's version is one above the stored one, so versions only grow.
func (s *Store) Acquire(ctx context.Context, key, owner string, ttl time.Duration) (ports.LeaseToken, error) {
	if ttl <= 0 {
		return ports.LeaseToken{}, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("dynamodb store: lease ttl %v is not positive", ttl))
	}
	ctx = withOp(ctx, opLease)
	cur, ok, err := s.readLease(ctx, key)
	if err != nil {
		return ports.LeaseToken{}, err
	}
	now := s.clock.Now()
	if ok && !cur.released && cur.Token.Owner != owner && now.Before(cur.ExpiresAt.Add(s.clockSkew)) {
		return ports.LeaseToken{}, held(key, cur.Token.Owner)
	}
	tok := ports.LeaseToken{Owner: owner, Version: cur.Token.Version + 1}
	in := &dynamodb.PutItemInput{
		TableName: aws.String(s.tables.lease),
		Item: item{attrPK: avS(key), attrOwner: avS(owner), attrVersion: avN(int64(tok.Version)),
			attrExpires: avTime(now.Add(ttl))},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	}
	if ok {
		in.ConditionExpression = aws.String("ver = :old")
		in.ExpressionAttributeValues = values(":old", avN(int64(cur.Token.Version)))
	}
	_, err = s.api.PutItem(ctx, in)
	if isConditionFailed(err) {
		return ports.LeaseToken{}, held(key, "another owner")
	}
	if err != nil {
		return ports.LeaseToken{}, classify("PutItem (lease)", err)
	}
	return tok, nil
}

// Renew extends the lease to now + ttl, conditional on tok being the
// current, unreleased token.
func (s *Store) Renew(ctx context.Context, key string, tok ports.LeaseToken, ttl time.Duration) error {
	if ttl <= 0 {
		return fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("dynamodb store: lease ttl %v is not positive", ttl))
	}
	return s.guardedLease(withOp(ctx, opLease), key, tok, "SET #exp = :exp", s.clock.Now().Add(ttl))
}

// Release expires the lease now and marks it released, conditional on
// tok being the current, unreleased token; the version stays, so the
// next token is higher still.
func (s *Store) Release(ctx context.Context, key string, tok ports.LeaseToken) error {
	return s.guardedLease(withOp(ctx, opLease), key, tok, "SET #exp = :exp, rl = :exp", s.clock.Now())
}

func (s *Store) guardedLease(ctx context.Context, key string, tok ports.LeaseToken, update string, exp time.Time) error {
	_, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.tables.lease),
		Key:                       item{attrPK: avS(key)},
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String("attribute_exists(pk) AND ver = :v AND ow = :o AND attribute_not_exists(rl)"),
		ExpressionAttributeNames:  map[string]string{"#exp": attrExpires},
		ExpressionAttributeValues: values(":v", avN(int64(tok.Version)), ":o", avS(tok.Owner), ":exp", avTime(exp)),
	})
	if isConditionFailed(err) {
		return fault.ErrStaleFencingToken.WithMessage(fmt.Sprintf(
			"dynamodb store: lease %q: token %s/%d is not the current one", key, tok.Owner, tok.Version))
	}
	return classify("UpdateItem (lease)", err)
}

// Read returns the stored lease with a consistent read.
func (s *Store) Read(ctx context.Context, key string) (ports.Lease, bool, error) {
	l, ok, err := s.readLease(withOp(ctx, opLease), key)
	return l.Lease, ok, err
}

type storedLease struct {
	ports.Lease
	released bool
}

func (s *Store) readLease(ctx context.Context, key string) (storedLease, bool, error) {
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.tables.lease), Key: item{attrPK: avS(key)}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return storedLease{}, false, classify("GetItem (lease)", err)
	}
	if out.Item == nil {
		return storedLease{}, false, nil
	}
	return storedLease{
		Lease: ports.Lease{Key: key, ExpiresAt: getTime(out.Item, attrExpires),
			Token: ports.LeaseToken{Owner: getS(out.Item, attrOwner), Version: uint64(getN(out.Item, attrVersion))}},
		released: has(out.Item, attrReleased),
	}, true, nil
}

func held(key, owner string) error {
	return fault.ErrAlreadyExists.WithMessage(fmt.Sprintf("dynamodb store: lease %q is held by %s", key, owner))
}
