package ports

import (
	"context"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// DLQCategory says why a message was dead-lettered.
type DLQCategory string

// DLQ categories.
const (
	DLQMaxRetries       DLQCategory = "max_retries"
	DLQPermanent        DLQCategory = "permanent"
	DLQExpired          DLQCategory = "expired"
	DLQFiltered         DLQCategory = "filtered"
	DLQRetryUnsupported DLQCategory = "retry_unsupported"
	DLQRejected         DLQCategory = "rejected"
)

// DLQEntry is one dead-lettered message with the evidence of its failure.
type DLQEntry struct {
	// ID identifies the entry (not the message); Write fills it when empty.
	ID        string
	Envelope  *messaging.Envelope
	RouteID   string
	BindingID string
	// Address is the outbound address of the failed dispatch, if any.
	Address        string
	ErrorClass     string
	ErrorCode      string
	ErrorMessage   string
	Category       DLQCategory
	Attempts       int
	FirstFailureAt time.Time
	LastFailureAt  time.Time
}

// DLQFilter narrows List, Count and Purge. Zero fields match everything;
// From is inclusive and To exclusive, on LastFailureAt.
type DLQFilter struct {
	RouteID  string
	Category DLQCategory
	From, To time.Time
}

// DLQPage is one page of a listing. NextCursor is empty on the last page.
type DLQPage struct {
	Entries    []DLQEntry
	NextCursor string
}

// DLQWriter is the part of a DLQ store the message path needs.
type DLQWriter interface {
	// Write stores entry durably. It fills entry.ID when empty.
	Write(ctx context.Context, entry DLQEntry) error
}

// DLQStore is a dead-letter queue an operator can inspect and repair.
//
// List returns entries oldest first (in write order) and is cursor-stable:
// entries written or deleted while an operator pages through never make a
// page repeat an entry or skip one that still exists. The cursor is opaque;
// an empty cursor starts at the beginning; a limit of 0 or less means a
// store default (100). Get and Delete fail with NOT_FOUND for an unknown
// id. Purge and Count take the same filter as List.
type DLQStore interface {
	DLQWriter
	List(ctx context.Context, f DLQFilter, cursor string, limit int) (DLQPage, error)
	// Get fails with NOT_FOUND for an unknown id.
	Get(ctx context.Context, id string) (DLQEntry, error)
	Delete(ctx context.Context, id string) error
	Purge(ctx context.Context, f DLQFilter) (int, error)
	Count(ctx context.Context, f DLQFilter) (int, error)
}

// HeaderRedrivenFrom links a redriven message to the DLQ entry's original
// message ID. It sits outside the reserved x-bridge. namespace so that
// ingress stripping keeps it.
const HeaderRedrivenFrom = "gobridge.redriven-from"

// HeaderDLQStage marks a DLQ entry's envelope with the stage that wrote it.
// DLQStageOutbox means the outbox drainer did: the envelope is the one the
// route's processors already produced for that binding, so a redrive
// persists it for the binding again instead of running the route anew.
// Entries without the header hold the message as received.
const HeaderDLQStage = "gobridge.dlq-stage"

// DLQStageOutbox is the HeaderDLQStage value of entries the drainer wrote.
const DLQStageOutbox = "outbox"
