package dynamodb

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// Store is an outbox, DLQ and lease store on three DynamoDB tables. Any
// number of Stores, in any number of processes on any number of machines,
// may share the tables; conditional writes coordinate them. It is safe for
// concurrent use. Build it with Open.
type Store struct {
	api      *dynamodb.Client
	tables   tableNames
	clock    ports.Clock
	log      *slog.Logger
	capacity *capacityMeter
	fenced   *fencedWrites
	seq      *sequencer

	staleClaimAge    time.Duration
	clockSkew        time.Duration
	dlqRetention     time.Duration
	claimConcurrency int
	compress         bool
}

// The store implements the three store ports.
var (
	_ ports.OutboxStore        = (*Store)(nil)
	_ ports.DLQStore           = (*Store)(nil)
	_ ports.LeaseStore         = (*Store)(nil)
	_ ports.SubscriptionLedger = (*Store)(nil)
)

// Open validates c, builds the SDK client and checks the three tables,
// creating missing ones when c.CreateTables is set. It fails with
// INVALID_CONFIG naming every problem: a bad setting, a missing table or
// one with another key schema.
func Open(ctx context.Context, c Config, opts ...Option) (*Store, error) {
	c = c.WithDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	o := defaultOptions()
	for _, fn := range opts {
		fn(&o)
	}
	label := o.storeLabel
	if label == "" {
		label = c.TablePrefix
	}
	s := &Store{
		tables:           c.tables(),
		clock:            o.clock,
		log:              o.logger,
		capacity:         newCapacityMeter(o.meter, label),
		fenced:           newFencedWrites(o.meter, label),
		seq:              &sequencer{tag: rand.Uint64()},
		staleClaimAge:    c.StaleClaimAge,
		clockSkew:        c.ClockSkew,
		dlqRetention:     c.DLQRetention,
		claimConcurrency: c.ClaimConcurrency,
		compress:         c.PayloadCompression == CompressionDeflate,
	}
	if o.skew != nil {
		s.clockSkew = max(*o.skew, 0)
	}
	api, err := newClient(ctx, c, &o, s.capacity)
	if err != nil {
		return nil, err
	}
	s.api = api
	if err := ensureTables(ctx, api, c, s); err != nil {
		return nil, err
	}
	s.log.Info("dynamodb store opened", "outbox", s.tables.outbox, "dlq", s.tables.dlq, "lease", s.tables.lease)
	return s, nil
}

// Stats returns the requests sent and the capacity units DynamoDB
// reported since Open, by store call, and the writes refused for a stale
// token.
func (s *Store) Stats() Stats {
	st := s.capacity.stats()
	st.FencedWrites = s.fenced.n.Load()
	return st
}

// Close releases nothing the tables need: every write is durable when its
// call returns. It exists so that the bridge closes every store alike.
func (s *Store) Close(context.Context) error { return nil }
