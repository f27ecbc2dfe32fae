package ports

import (
	"context"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// OutboxRecord is one persisted dispatch: a message bound for one binding.
// The destination address is its own field and never lives in the
// envelope's subject.
type OutboxRecord struct {
	ID        string
	Partition string
	RouteID   string
	BindingID string
	Address   string
	Envelope  *messaging.Envelope
	// ReplayCount is how many times the record was claimed and failed.
	ReplayCount int
	LastError   string
	CreatedAt   time.Time
	// FirstAttemptAt is zero until the first send attempt.
	FirstAttemptAt time.Time
	// NextAttemptAt is when the record becomes claimable again.
	NextAttemptAt time.Time
}

// OutboxStore persists records for later draining.
//
// Guarded writes (Claim, Complete, Replay) carry the drainer's lease token
// and fail with STALE_FENCING_TOKEN when a newer token exists for the
// partition. A record claimed by an owner that then vanished becomes
// claimable again once its claim is older than the store's stale-claim age.
// Claims return records of a partition in the order they were persisted.
type OutboxStore interface {
	// Persist stores all records durably, or none of them.
	Persist(ctx context.Context, recs []OutboxRecord) error
	// Claim marks up to limit due records of partition as owned by tok.
	Claim(ctx context.Context, partition string, tok LeaseToken, limit int) ([]OutboxRecord, error)
	// Complete removes a delivered (or dead-lettered) record.
	Complete(ctx context.Context, id string, tok LeaseToken) error
	// Replay releases a record after a failed attempt: it increments the
	// replay count, records cause and makes the record due again at next.
	Replay(ctx context.Context, id string, tok LeaseToken, cause error, next time.Time) error
	// Depth returns the number of records of partition not yet completed.
	Depth(ctx context.Context, partition string) (int, error)
}
