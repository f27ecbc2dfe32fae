package dynamodb

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/google/go-cmp/cmp"
	miniserver "github.com/truora/minidyn/server"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// failAttempts is SDK middleware, after the retry step, that fails the
// first n attempts of operation op with err; n < 0 fails them all. It
// counts the attempts it saw.
func failAttempts(op string, n int64, err error, seen *atomic.Int64) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Finalize.Add(middleware.FinalizeMiddlewareFunc("test.fail",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
					if middleware.GetOperationName(ctx) == op {
						if k := seen.Add(1); n < 0 || k <= n {
							return middleware.FinalizeOutput{}, middleware.Metadata{}, err
						}
					}
					return next.HandleFinalize(ctx, in)
				}), middleware.After)
		})
	}
}

// TestThrottling checks that throttled requests are retried with the
// SDK's backoff and, once its attempts are spent, fail as THROTTLED, a
// transient fault.
func TestThrottling(t *testing.T) {
	emu := newEmulator(t)
	cases := []struct {
		name     string
		err      error
		fails    int64
		want     error
		attempts int64
	}{
		{"provisioned throughput, then success", &types.ProvisionedThroughputExceededException{Message: aws.String("slow down")}, 2, nil, 3},
		{"throttling, then success", &smithy.GenericAPIError{Code: "ThrottlingException", Message: "rate exceeded"}, 1, nil, 2},
		{"throttled on every attempt", &types.ProvisionedThroughputExceededException{Message: aws.String("slow down")}, -1, fault.ErrThrottled, 3},
		{"request limit on every attempt", &types.RequestLimitExceeded{Message: aws.String("account limit")}, -1, fault.ErrThrottled, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var seen atomic.Int64
			cfg := emu.config(emu.prefix())
			cfg.MaxAttempts = 3
			s, err := Open(t.Context(), cfg, WithClock(clock.NewFake(testStart())),
				WithClientOptions(failAttempts("GetItem", c.fails, c.err, &seen)))
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = s.Read(t.Context(), "k")
			if !errors.Is(err, c.want) && (c.want != nil || err != nil) {
				t.Errorf("Read = %v, want %v", err, c.want)
			}
			if c.want != nil && fault.ClassOf(err) != fault.ClassTransient {
				t.Errorf("class of %v = %v, want transient", err, fault.ClassOf(err))
			}
			if got := seen.Load(); got != c.attempts {
				t.Errorf("%d attempts, want %d", got, c.attempts)
			}
		})
	}
}

// TestUnprocessedItems has the emulator leave batch items unprocessed:
// the store sends them again with backoff until they are written, and
// when they never are, fails as THROTTLED and removes what it wrote.
func TestUnprocessedItems(t *testing.T) {
	emu := newEmulator(t)
	t.Run("retried until written", func(t *testing.T) {
		prefix := emu.prefix()
		s := emu.open(t, prefix, clock.NewFake(testStart()))
		var left atomic.Int64
		left.Store(7)
		emu.server.EmulateUnprocessedItems(prefix+"outbox", func(n int, _ map[string]*miniserver.AttributeValue) bool {
			return n%3 == 0 && left.Add(-1) >= 0
		})
		t.Cleanup(emu.server.ClearUnprocessedItems)
		recs := records("p", 60, 100)
		if err := s.Persist(t.Context(), recs); err != nil {
			t.Fatalf("Persist: %v", err)
		}
		wantClaimed(t, s, "p", ids(recs))
		if got := s.Stats().Requests[opPersist]; got <= 3 {
			t.Errorf("persist sent %d requests, want more than the 3 batches a clean run needs", got)
		}
	})
	t.Run("never written", func(t *testing.T) {
		prefix := emu.prefix()
		s := emu.open(t, prefix, clock.NewFake(testStart()))
		// The records whose payload starts with "e" never get written,
		// wherever they sit in a batch.
		emu.server.EmulateUnprocessedItems(prefix+"outbox", func(_ int, raw map[string]*miniserver.AttributeValue) bool {
			pl := raw[attrPayload]
			return pl != nil && strings.HasPrefix(string(pl.B), "e")
		})
		t.Cleanup(emu.server.ClearUnprocessedItems)
		err := s.Persist(t.Context(), records("p", 30, 100))
		if !errors.Is(err, fault.ErrThrottled) {
			t.Fatalf("Persist = %v, want THROTTLED", err)
		}
		emu.server.ClearUnprocessedItems()
		if n, err := s.Depth(t.Context(), "p"); err != nil || n != 0 {
			t.Errorf("Depth after the failed persist = %d, %v; want 0 (undone)", n, err)
		}
	})
}

// injectCapacity is SDK middleware that reports units capacity units on
// every write output, as DynamoDB would; minidyn reports none.
func injectCapacity(units float64) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Deserialize.Add(middleware.DeserializeMiddlewareFunc("test.capacity",
				func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
					out, md, err := next.HandleDeserialize(ctx, in)
					cc := &types.ConsumedCapacity{CapacityUnits: aws.Float64(units)}
					switch v := out.Result.(type) {
					case *dynamodb.PutItemOutput:
						v.ConsumedCapacity = cc
					case *dynamodb.UpdateItemOutput:
						v.ConsumedCapacity = cc
					case *dynamodb.DeleteItemOutput:
						v.ConsumedCapacity = cc
					case *dynamodb.BatchWriteItemOutput:
						v.ConsumedCapacity = []types.ConsumedCapacity{*cc}
					case *dynamodb.GetItemOutput:
						v.ConsumedCapacity = cc
					case *dynamodb.QueryOutput:
						v.ConsumedCapacity = cc
					}
					return out, md, err
				}), middleware.Before)
		})
	}
}

// TestConsumedCapacityMetric checks that the store asks for consumed
// capacity and adds what comes back to
// gobridge_store_consumed_capacity_total, by call and unit.
func TestConsumedCapacityMetric(t *testing.T) {
	emu := newEmulator(t)
	m := telemetry.NewMemory()
	var asked atomic.Int64
	checkAsked := func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Serialize.Add(middleware.SerializeMiddlewareFunc("test.asked",
				func(ctx context.Context, in middleware.SerializeInput, next middleware.SerializeHandler) (middleware.SerializeOutput, middleware.Metadata, error) {
					if v, ok := in.Parameters.(*dynamodb.BatchWriteItemInput); ok && v.ReturnConsumedCapacity == types.ReturnConsumedCapacityTotal {
						asked.Add(1)
					}
					return next.HandleSerialize(ctx, in)
				}), middleware.After)
		})
	}
	s := emu.open(t, emu.prefix(), clock.NewFake(testStart()),
		WithMetrics(m, "shared"), WithClientOptions(injectCapacity(0.5), checkAsked))
	recs := records("p", 3, 10)
	if err := s.Persist(t.Context(), recs); err != nil {
		t.Fatal(err)
	}
	wantClaimed(t, s, "p", ids(recs))
	for _, r := range recs {
		if err := s.Complete(t.Context(), r.ID, ports.LeaseToken{}); err != nil {
			t.Fatal(err)
		}
	}
	// persist: one batch; claim: the fence read,
	// the query and three updates; complete: three fence reads and three
	// deletes.
	want := map[[2]string]float64{
		{opPersist, "write"}: 0.5, {opClaim, "read"}: 1, {opClaim, "write"}: 1.5,
		{opComplete, "read"}: 1.5, {opComplete, "write"}: 1.5,
	}
	got := map[[2]string]float64{}
	for k := range want {
		got[k] = m.Value("gobridge_store_consumed_capacity_total", "shared", k[0], k[1])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("consumed capacity by op and unit (-want +got):\n%s", diff)
	}
	if asked.Load() == 0 {
		t.Error("BatchWriteItem did not ask for consumed capacity")
	}
}
