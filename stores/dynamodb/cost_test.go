package dynamodb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// estimator is SDK middleware that bills each request as DynamoDB's
// pricing rules do, from the item sizes it sees, since minidyn reports no
// capacity: a write costs one unit per started KiB of the item (an update
// the larger of the item before and after it, a delete the item deleted,
// a failed condition the item it was checked against), twice that inside
// a transaction; a consistent read one unit per started 4 KiB of what it
// read. Item size is the sum of attribute name and value lengths, numbers
// at (significant digits + 1) / 2 + 1 bytes.
type estimator struct {
	mu    sync.Mutex
	size  map[string]int // last known size of each item
	write map[string]float64
	read  map[string]float64
	reqs  map[string]int
}

func newEstimator() *estimator {
	return &estimator{size: map[string]int{}, write: map[string]float64{}, read: map[string]float64{}, reqs: map[string]int{}}
}

func (e *estimator) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Initialize.Add(middleware.InitializeMiddlewareFunc("test.estimate",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				e.bill(opOf(ctx), in.Parameters, out.Result)
				return out, md, err
			}), middleware.After)
	})
}

func writeUnits(size int) float64 { return math.Max(1, math.Ceil(float64(size)/1024)) }
func readUnits(size int) float64  { return math.Max(1, math.Ceil(float64(size)/4096)) }

func (e *estimator) bill(op string, in, out any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reqs[op]++
	switch v := in.(type) {
	case *dynamodb.PutItemInput:
		e.write[op] += e.put(*v.TableName, v.Item)
	case *dynamodb.BatchWriteItemInput:
		for table, reqs := range v.RequestItems {
			for _, r := range reqs {
				if r.PutRequest != nil {
					e.write[op] += e.put(table, r.PutRequest.Item)
				} else {
					e.write[op] += e.del(table, r.DeleteRequest.Key)
				}
			}
		}
	case *dynamodb.UpdateItemInput:
		k := itemKey(*v.TableName, v.Key)
		size := e.size[k]
		if o, ok := out.(*dynamodb.UpdateItemOutput); ok && v.ReturnValues == types.ReturnValueAllNew && o != nil {
			size = max(size, itemBytes(o.Attributes))
			e.size[k] = itemBytes(o.Attributes)
		}
		e.write[op] += writeUnits(size)
	case *dynamodb.DeleteItemInput:
		e.write[op] += e.del(*v.TableName, v.Key)
	case *dynamodb.TransactWriteItemsInput:
		for _, a := range v.TransactItems {
			switch {
			case a.Put != nil:
				e.write[op] += 2 * e.put(*a.Put.TableName, a.Put.Item)
			case a.Delete != nil:
				e.write[op] += 2 * e.del(*a.Delete.TableName, a.Delete.Key)
			}
		}
	case *dynamodb.GetItemInput:
		n := 0
		if o, ok := out.(*dynamodb.GetItemOutput); ok && o != nil {
			n = itemBytes(o.Item)
		}
		e.read[op] += readUnits(n)
	case *dynamodb.QueryInput:
		e.read[op] += readUnits(e.evaluated(v))
	}
}

// evaluated is the size of what a query reads: the items of its partition
// after its ":after" bound, up to its limit, filtered out or not (a
// filter does not lower the bill).
func (e *estimator) evaluated(q *dynamodb.QueryInput) int {
	prefix := *q.TableName + "\x00" + getS(q.ExpressionAttributeValues, ":pk") + "\x00"
	after := prefix + skString(q.ExpressionAttributeValues[":after"])
	var keys []string
	for k := range e.size {
		if strings.HasPrefix(k, prefix) && k > after {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if q.Limit != nil && int(*q.Limit) < len(keys) {
		keys = keys[:*q.Limit]
	}
	n := 0
	for _, k := range keys {
		n += e.size[k]
	}
	return n
}

func (e *estimator) put(table string, it item) float64 {
	n := itemBytes(it)
	e.size[itemKey(table, it)] = n
	return writeUnits(n)
}

func (e *estimator) del(table string, key item) float64 {
	k := itemKey(table, key)
	n := e.size[k]
	delete(e.size, k)
	return writeUnits(n)
}

func itemKey(table string, it item) string {
	return table + "\x00" + getS(it, attrPK) + "\x00" + skString(it[attrSK])
}

// skString spells a sort key so that strings compare as the keys do.
func skString(v types.AttributeValue) string {
	if _, ok := v.(*types.AttributeValueMemberN); ok {
		return fmt.Sprintf("%019d", getN(item{"v": v}, "v"))
	}
	return getS(item{"v": v}, "v")
}

// costRun is one measured drain: what n messages cost from persist to
// complete.
type costRun struct {
	payload        string
	size, batch    int
	leased         bool
	persist, claim float64
	complete, read float64
	requests       int
	itemBytes      int
}

// measure persists n messages in batches of batch, claims them batch at a
// time and completes each, as a shared_outbox route's drainer does.
func measure(t *testing.T, emu *emulator, payload func(i int) []byte, n, batch int, leased, compress bool) costRun {
	t.Helper()
	est := newEstimator()
	cfg := emu.config(emu.prefix())
	if !compress {
		cfg.PayloadCompression = CompressionNone
	}
	s, err := Open(t.Context(), cfg, WithClock(clock.NewFake(testStart())), WithClientOptions(est.option))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	tok := ports.LeaseToken{}
	if leased {
		if tok, err = s.Acquire(ctx, "outbox/orders/to-hook", "bridge-a", 360e9); err != nil {
			t.Fatal(err)
		}
	}
	est.mu.Lock()
	clear(est.reqs)
	clear(est.write)
	clear(est.read)
	est.mu.Unlock()
	for from := 0; from < n; from += batch {
		recs := make([]ports.OutboxRecord, 0, batch)
		for i := from; i < min(from+batch, n); i++ {
			env := messaging.NewEnvelope("orders.created", payload(i))
			env.SetHeader("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
			recs = append(recs, ports.OutboxRecord{Partition: "orders/to-hook", RouteID: "orders",
				BindingID: "to-hook", Address: "orders", Envelope: env})
		}
		if err := s.Persist(ctx, recs); err != nil {
			t.Fatal(err)
		}
	}
	done := 0
	for done < n {
		got, err := s.Claim(ctx, "orders/to-hook", tok, batch)
		if err != nil || len(got) == 0 {
			t.Fatalf("Claim after %d of %d: %d records, %v", done, n, len(got), err)
		}
		for _, r := range got {
			if err := s.Complete(ctx, r.ID, tok); err != nil {
				t.Fatal(err)
			}
		}
		done += len(got)
	}
	est.mu.Lock()
	defer est.mu.Unlock()
	r := costRun{size: len(payload(0)), batch: batch, leased: leased, persist: est.write[opPersist],
		claim: est.write[opClaim], complete: est.write[opComplete]}
	for op, c := range est.reqs {
		if op != opLease {
			r.requests += c
		}
	}
	for op, u := range est.read {
		if op != opLease {
			r.read += u
		}
	}
	return r
}

func jsonPayload(size int) func(int) []byte {
	return func(i int) []byte {
		var b strings.Builder
		fmt.Fprintf(&b, `{"order_id":%d,"customer":"c-%05d","lines":[`, i, i%9973)
		for j := 0; b.Len() < size-40; j++ {
			fmt.Fprintf(&b, `{"sku":"SKU-%06d","qty":%d,"price":"%d.%02d"},`, (i*31+j)%999983, j%7+1, j*13%200, j%100)
		}
		s := strings.TrimSuffix(b.String(), ",") + `],"note":"`
		return []byte(s + strings.Repeat("x", max(0, size-len(s)-2)) + `"}`)
	}
}

func randomPayload(size int) func(int) []byte {
	return func(i int) []byte {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		p := make([]byte, size)
		for j := range p {
			p[j] = byte(r.Uint32())
		}
		return p
	}
}

// TestWriteCostPerMessage measures the capacity units a message costs
// through the outbox (persist, claim, complete) for 1 KiB payloads, by
// batch size, and checks the figures the README publishes.
func TestWriteCostPerMessage(t *testing.T) {
	emu := newEmulator(t)
	const n = 100
	var runs []costRun
	cases := []struct {
		name     string
		gen      func(int) []byte
		compress bool
		want     float64 // write units per message, unleased
	}{
		{"json", jsonPayload(1024), true, 3},
		{"json/none", jsonPayload(1024), false, 6},
		{"random", randomPayload(1024), true, 6},
		{"json-512", jsonPayload(512), true, 3},
	}
	for _, c := range cases {
		for _, batch := range []int{1, 10, 25} {
			r := measure(t, emu, c.gen, n, batch, false, c.compress)
			r.payload = c.name
			runs = append(runs, r)
			if got := (r.persist + r.claim + r.complete) / n; got != c.want {
				t.Errorf("%s, batch %d: %.2f write units per message, want %.2f", c.name, batch, got, c.want)
			}
		}
		r := measure(t, emu, c.gen, n, 10, true, c.compress)
		r.payload = c.name
		runs = append(runs, r)
		// A leased drain raises the partition's fence once: one unit.
		if got := (r.persist + r.claim + r.complete) / n; got != c.want+1.0/n {
			t.Errorf("%s, leased: %.2f write units per message, want %.2f", c.name, got, c.want+1.0/n)
		}
	}
	t.Log("payload    bytes batch leased | WCU/msg persist claim complete total | RCU/msg | requests/msg")
	for _, r := range runs {
		t.Logf("%-10s %5d %5d %6v | %7.2f %5.2f %8.2f %5.2f | %7.2f | %6.2f", r.payload, r.size, r.batch, r.leased,
			r.persist/n, r.claim/n, r.complete/n, (r.persist+r.claim+r.complete)/n, r.read/n, float64(r.requests)/n)
	}
}
