package dynamodb

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// dlqDefaultLimit is the page size of a List with a limit of 0 or less.
const dlqDefaultLimit = 100

// cursorPrefix versions the cursor format.
const cursorPrefix = "ddq1:"

// encodeCursor makes the opaque cursor that resumes after entry seq: the
// sort key of DynamoDB's exclusive start key, which is all of it, since
// every entry shares one partition key. Sequence numbers are never handed
// out twice, so the cursor stays valid whatever is written or deleted.
func encodeCursor(seq int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(seq, 10)))
}

// decodeCursor returns the sequence number a cursor resumes after; the
// empty cursor starts at the beginning (0). Anything this store did not
// make fails with INVALID_CONFIG.
func decodeCursor(c string) (int64, error) {
	if c == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(c)
	if err == nil {
		if rest, ok := strings.CutPrefix(string(raw), cursorPrefix); ok {
			seq, err := strconv.ParseInt(rest, 10, 64)
			// The decoder skips line breaks: only the canonical
			// spelling of a cursor is one.
			if err == nil && seq > 0 && encodeCursor(seq) == c {
				return seq, nil
			}
		}
	}
	short := c
	if len(short) > 24 {
		short = short[:24] + "…"
	}
	return 0, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("dynamodb store: invalid DLQ cursor %q", short))
}

// dlqQuery is a consistent query over the entries after a sequence
// number that match a filter.
func (s *Store) dlqQuery(f ports.DLQFilter, after int64) *dynamodb.QueryInput {
	vals := values(":pk", avS(pkDLQEntry), ":after", avSK(after))
	var conds []string
	if f.RouteID != "" {
		conds = append(conds, "rt = :rt")
		vals[":rt"] = avS(f.RouteID)
	}
	if f.Category != "" {
		conds = append(conds, "ct = :ct")
		vals[":ct"] = avS(string(f.Category))
	}
	if !f.From.IsZero() {
		conds = append(conds, "lf >= :from")
		vals[":from"] = avTime(f.From)
	}
	if !f.To.IsZero() {
		conds = append(conds, "lf < :to")
		vals[":to"] = avTime(f.To)
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.tables.dlq),
		KeyConditionExpression:    aws.String("pk = :pk AND sk > :after"),
		ExpressionAttributeValues: vals,
		ConsistentRead:            aws.Bool(true),
	}
	if len(conds) > 0 {
		in.FilterExpression = aws.String(strings.Join(conds, " AND "))
	}
	return in
}

// List returns up to limit entries matching f after cursor, oldest
// first. It reads one entry beyond the page to know whether a cursor is
// due, so a page that ends at the last match carries none.
func (s *Store) List(ctx context.Context, f ports.DLQFilter, cursor string, limit int) (ports.DLQPage, error) {
	ctx = withOp(ctx, opDLQ)
	after, err := decodeCursor(cursor)
	if err != nil {
		return ports.DLQPage{}, err
	}
	if limit <= 0 {
		limit = dlqDefaultLimit
	}
	in := s.dlqQuery(f, after)
	in.Limit = aws.Int32(int32(min(limit+1, 1000)))
	var items []item
	for len(items) <= limit {
		out, err := s.api.Query(ctx, in)
		if err != nil {
			return ports.DLQPage{}, classify("Query (DLQ)", err)
		}
		items = append(items, out.Items...)
		if !nextPage(in, out.LastEvaluatedKey) {
			break
		}
	}
	var page ports.DLQPage
	if len(items) > limit {
		items = items[:limit]
		page.NextCursor = encodeCursor(getN(items[limit-1], attrSK))
	}
	for _, it := range items {
		e, err := entryOf(it)
		if err != nil {
			return ports.DLQPage{}, err
		}
		page.Entries = append(page.Entries, e)
	}
	return page, nil
}

// Count returns how many entries match f.
func (s *Store) Count(ctx context.Context, f ports.DLQFilter) (int, error) {
	ctx = withOp(ctx, opDLQ)
	in := s.dlqQuery(f, 0)
	in.Select = types.SelectCount
	n := 0
	for {
		out, err := s.api.Query(ctx, in)
		if err != nil {
			return 0, classify("Query (DLQ count)", err)
		}
		n += int(out.Count)
		if !nextPage(in, out.LastEvaluatedKey) {
			return n, nil
		}
	}
}

// Purge deletes the entries matching f, each with a conditional delete,
// and returns how many it deleted itself: an entry another operator
// deleted meanwhile is not counted twice.
func (s *Store) Purge(ctx context.Context, f ports.DLQFilter) (int, error) {
	ctx = withOp(ctx, opDLQ)
	in := s.dlqQuery(f, 0)
	in.ProjectionExpression = aws.String("sk, #id")
	in.ExpressionAttributeNames = map[string]string{"#id": attrCallerID}
	n := 0
	for {
		out, err := s.api.Query(ctx, in)
		if err != nil {
			return n, classify("Query (DLQ purge)", err)
		}
		for _, it := range out.Items {
			id := getS(it, attrCallerID)
			deleted, err := s.deleteEntry(ctx, getN(it, attrSK), id, id != "")
			if err != nil {
				return n, err
			}
			if deleted {
				n++
			}
		}
		if !nextPage(in, out.LastEvaluatedKey) {
			return n, nil
		}
	}
}
