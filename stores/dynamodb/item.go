package dynamodb

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// item is one DynamoDB item.
type item = map[string]types.AttributeValue

func avS(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func avN(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func avB(b []byte) types.AttributeValue { return &types.AttributeValueMemberB{Value: b} }

// Times are strings of Unix nanoseconds, zero-padded to 19 digits, so
// that comparing two of them in a condition compares the times to the
// nanosecond: DynamoDB compares strings byte by byte, while an emulator
// that does its number arithmetic in float64 (minidyn) would round
// nanoseconds away. The zero time is all zeros.
func avTime(t time.Time) types.AttributeValue { return avS(timeString(encodeTime(t))) }

func timeString(n int64) string {
	if n < 0 {
		return strconv.FormatInt(n, 10) // before 1970: kept exactly, not ordered
	}
	return fmt.Sprintf("%019d", n)
}

// avSK is a sort key. It is zero-padded as well: DynamoDB ignores the
// zeros, and an emulator that orders keys as text (minidyn) then orders
// them by number.
func avSK(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: fmt.Sprintf("%019d", n)}
}

func encodeTime(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func decodeTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// keyN returns the primary key of a DLQ item (a number sort key).
func keyN(pk string, sk int64) item { return item{attrPK: avS(pk), attrSK: avSK(sk)} }

// keyS returns the primary key of an outbox item (a string sort key).
func keyS(pk, sk string) item { return item{attrPK: avS(pk), attrSK: avS(sk)} }

func getS(it item, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func getN(it item, name string) int64 {
	if v, ok := it[name].(*types.AttributeValueMemberN); ok {
		n, err := strconv.ParseInt(v.Value, 10, 64)
		if err == nil {
			return n
		}
	}
	return 0
}

func getB(it item, name string) []byte {
	if v, ok := it[name].(*types.AttributeValueMemberB); ok {
		return v.Value
	}
	return nil
}

func getTime(it item, name string) time.Time {
	n, err := strconv.ParseInt(getS(it, name), 10, 64)
	if err != nil {
		return time.Time{}
	}
	return decodeTime(n)
}

func has(it item, name string) bool {
	_, ok := it[name]
	return ok
}

// maxItemBytes is DynamoDB's limit on an item's size.
const maxItemBytes = 400 * 1024

// checkSize refuses an item DynamoDB would refuse, before it is sent, with
// PAYLOAD_TOO_LARGE naming what.
func checkSize(it item, what string) error {
	if n := itemBytes(it); n > maxItemBytes {
		return fault.ErrPayloadTooLarge.WithMessage(fmt.Sprintf(
			"dynamodb store: %s is %d bytes stored, over DynamoDB's 400 KB item limit", what, n))
	}
	return nil
}

// itemBytes is an item's size as DynamoDB bills it: attribute names and
// values, a number at (significant digits + 1) / 2 + 1 bytes.
func itemBytes(it item) int {
	n := 0
	for name, v := range it {
		n += len(name) + valueBytes(v)
	}
	return n
}

func valueBytes(v types.AttributeValue) int {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return len(x.Value)
	case *types.AttributeValueMemberN:
		digits := strings.TrimLeft(strings.TrimLeft(x.Value, "-"), "0")
		return (len(digits)+1)/2 + 1
	case *types.AttributeValueMemberB:
		return len(x.Value)
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range x.Value {
			n += len(k) + valueBytes(e)
		}
		return n
	}
	return 1
}

// values builds an expression value map from name, value pairs.
func values(kv ...any) map[string]types.AttributeValue {
	m := make(map[string]types.AttributeValue, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(types.AttributeValue)
	}
	return m
}
