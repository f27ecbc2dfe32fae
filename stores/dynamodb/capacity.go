package dynamodb

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Operation labels of the capacity metric: the store call a request
// served.
const (
	opPersist  = "persist"
	opClaim    = "claim"
	opComplete = "complete"
	opReplay   = "replay"
	opDepth    = "depth"
	opDLQ      = "dlq"
	opLease    = "lease"
	opLedger   = "managed_subscriptions"
	opSetup    = "setup"
)

type opKey struct{}

// withOp labels the requests made with ctx.
func withOp(ctx context.Context, op string) context.Context {
	return context.WithValue(ctx, opKey{}, op)
}

func opOf(ctx context.Context) string {
	if op, ok := ctx.Value(opKey{}).(string); ok {
		return op
	}
	return "other"
}

// capacityMeter asks every request for its consumed capacity and adds
// what DynamoDB reports to gobridge_store_consumed_capacity_total, by
// store call and by read or write units. It also keeps the totals for
// Stats.
type capacityMeter struct {
	meter telemetry.Meter
	store string

	mu       sync.Mutex
	counters map[[2]string]telemetry.Counter
	units    map[[2]string]float64
	requests map[string]int64
}

func newCapacityMeter(m telemetry.Meter, store string) *capacityMeter {
	return &capacityMeter{meter: m, store: store, counters: map[[2]string]telemetry.Counter{},
		units: map[[2]string]float64{}, requests: map[string]int64{}}
}

// middleware is the SDK stack hook; it sits in the initialize step, so it
// sees every attempt's final result once.
func (c *capacityMeter) middleware(st *middleware.Stack) error {
	return st.Initialize.Add(middleware.InitializeMiddlewareFunc("gobridge.capacity",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			askCapacity(in.Parameters)
			out, md, err := next.HandleInitialize(ctx, in)
			units, read := consumed(out.Result)
			c.add(opOf(ctx), units, read)
			return out, md, err
		}), middleware.After)
}

func (c *capacityMeter) add(op string, units float64, read bool) {
	unit := "write"
	if read {
		unit = "read"
	}
	k := [2]string{op, unit}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests[op]++
	if units == 0 {
		return
	}
	ctr, ok := c.counters[k]
	if !ok {
		ctr = c.meter.Counter(telemetry.Desc{Name: "gobridge_store_consumed_capacity_total",
			Help:   "Capacity units DynamoDB reported as consumed, by store call (op) and unit (read or write).",
			Labels: []string{"store", "op", "unit"}}, c.store, op, unit)
		c.counters[k] = ctr
	}
	ctr.Add(units)
	c.units[k] += units
}

// Stats are the requests a store sent and the capacity units DynamoDB
// reported, by store call.
type Stats struct {
	// Requests counts requests by store call (persist, claim, ...), each
	// once however often the SDK retried it.
	Requests map[string]int64
	// ReadUnits and WriteUnits are the reported capacity units by call.
	ReadUnits, WriteUnits map[string]float64
	// FencedWrites counts the claims, completes and replays refused for
	// a stale lease token (gobridge_dynamodb_fenced_writes_total).
	FencedWrites int64
}

func (c *capacityMeter) stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Stats{Requests: map[string]int64{}, ReadUnits: map[string]float64{}, WriteUnits: map[string]float64{}}
	for k, v := range c.requests {
		s.Requests[k] = v
	}
	for k, v := range c.units {
		if k[1] == "read" {
			s.ReadUnits[k[0]] += v
		} else {
			s.WriteUnits[k[0]] += v
		}
	}
	return s
}

// askCapacity sets ReturnConsumedCapacity on the inputs that take it.
func askCapacity(in any) {
	const total = types.ReturnConsumedCapacityTotal
	switch v := in.(type) {
	case *dynamodb.PutItemInput:
		v.ReturnConsumedCapacity = total
	case *dynamodb.UpdateItemInput:
		v.ReturnConsumedCapacity = total
	case *dynamodb.DeleteItemInput:
		v.ReturnConsumedCapacity = total
	case *dynamodb.GetItemInput:
		v.ReturnConsumedCapacity = total
	case *dynamodb.QueryInput:
		v.ReturnConsumedCapacity = total
	case *dynamodb.BatchWriteItemInput:
		v.ReturnConsumedCapacity = total
	case *dynamodb.TransactWriteItemsInput:
		v.ReturnConsumedCapacity = total
	}
}

// consumed returns the units an output reports and whether they are read
// units.
func consumed(out any) (float64, bool) {
	switch v := out.(type) {
	case *dynamodb.PutItemOutput:
		return units(v.ConsumedCapacity), false
	case *dynamodb.UpdateItemOutput:
		return units(v.ConsumedCapacity), false
	case *dynamodb.DeleteItemOutput:
		return units(v.ConsumedCapacity), false
	case *dynamodb.GetItemOutput:
		return units(v.ConsumedCapacity), true
	case *dynamodb.QueryOutput:
		return units(v.ConsumedCapacity), true
	case *dynamodb.BatchWriteItemOutput:
		return sumUnits(v.ConsumedCapacity), false
	case *dynamodb.TransactWriteItemsOutput:
		return sumUnits(v.ConsumedCapacity), false
	}
	return 0, false
}

func units(c *types.ConsumedCapacity) float64 {
	if c == nil || c.CapacityUnits == nil {
		return 0
	}
	return *c.CapacityUnits
}

func sumUnits(cs []types.ConsumedCapacity) float64 {
	var n float64
	for i := range cs {
		n += units(&cs[i])
	}
	return n
}
