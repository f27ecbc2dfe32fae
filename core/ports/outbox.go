package ports

import (
	"context"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// DefaultStaleClaimAge is how long a claim may stay uncompleted before the
// record can be claimed again, by default. It covers a drainer that died
// between claiming and completing.
const DefaultStaleClaimAge = 30 * time.Second

// OutboxRecord is one persisted dispatch: a message bound for one binding.
// The destination address is its own field and never lives in the
// envelope's subject.
type OutboxRecord struct {
	// ID identifies the record; Persist fills it when empty.
	ID string
	// Partition groups records drained together (a route, or a session and
	// binding). Claims are per partition.
	Partition string
	RouteID   string
	BindingID string
	Address   string
	Envelope  *messaging.Envelope
	// ReplayCount is how many attempts failed and were replayed.
	ReplayCount int
	// ClaimCount is how many times the record has been claimed, a stale
	// claim taken over included. Claim raises it in the same durable write
	// that claims the record, so a claim whose drainer died before it
	// could complete or replay the record (a process crash mid-send) still
	// counts. Persist stores the value given, normally zero; Replay and
	// Complete leave it alone.
	ClaimCount int
	// LastError is the message of the last failed attempt.
	LastError string
	// CreatedAt is set by Persist.
	CreatedAt time.Time
	// FirstAttemptAt is set by the first Claim of the record and kept.
	FirstAttemptAt time.Time
	// NextAttemptAt is when the record is due; Persist makes it due at once
	// unless set, Replay moves it.
	NextAttemptAt time.Time
}

// OutboxStore persists records for later draining.
//
// Fencing: guarded writes (Claim, Complete, Replay) carry the drainer's
// lease token. The store remembers, per partition, the highest token
// version it has seen; a write carrying a lower version fails with
// STALE_FENCING_TOKEN and changes nothing. The zero token (standalone
// draining without a lease) has version 0.
//
// Claims: Claim returns due records (NextAttemptAt not after now) that are
// unclaimed or whose claim is older than the store's stale-claim age, in
// the order they were persisted, marks them claimed and raises their
// ClaimCount by one, all in one durable write. Two concurrent
// Claims never return the same record unless its claim went stale in
// between.
type OutboxStore interface {
	// Persist stores all records durably, or none of them. It fills empty
	// IDs and sets CreatedAt.
	Persist(ctx context.Context, recs []OutboxRecord) error
	// Claim marks up to limit due records of partition as claimed under tok,
	// raises their ClaimCount, and returns them as claimed.
	Claim(ctx context.Context, partition string, tok LeaseToken, limit int) ([]OutboxRecord, error)
	// Complete removes a delivered (or dead-lettered) record. Completing a
	// record that is already gone is not an error.
	Complete(ctx context.Context, id string, tok LeaseToken) error
	// Replay releases a claimed record after a failed attempt: it increments
	// ReplayCount, stores cause's message as LastError and makes the record
	// due again at next. It fails with NOT_FOUND for an unknown record.
	Replay(ctx context.Context, id string, tok LeaseToken, cause error, next time.Time) error
	// Depth returns the number of records of partition not yet completed,
	// claimed or not.
	Depth(ctx context.Context, partition string) (int, error)
}

// OutboxBatchCompleter is implemented by outbox stores that can complete
// many records in one write. Drainers use it when present, which matters
// for stores where every write costs a disk flush.
type OutboxBatchCompleter interface {
	// CompleteBatch completes every record in ids, as Complete would, in
	// one atomic write.
	CompleteBatch(ctx context.Context, ids []string, tok LeaseToken) error
}
