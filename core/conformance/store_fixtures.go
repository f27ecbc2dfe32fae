package conformance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// Fixture values of the store suites. The address looks nothing like the
// subject, so that a store confusing the two shows up.
const (
	fixtureRoute   = "route-orders"
	fixtureBinding = "binding-warehouse"
	fixtureAddress = "queue://warehouse/inbound"
)

// tok returns a lease token of version v.
func tok(v uint64) ports.LeaseToken {
	return ports.LeaseToken{Owner: fmt.Sprintf("owner-%d", v), Version: v}
}

// noTok is the zero token of standalone draining.
var noTok = ports.LeaseToken{}

// newRecord builds the i-th distinguishable record of partition. Its
// envelope carries application and reserved headers and an expiry.
func newRecord(partition string, i int) ports.OutboxRecord {
	env := numbered(partition, i)
	env.SetHeader("app-seq", fmt.Sprint(i))
	env.ExpiresAt = env.CreatedAt.Add(time.Hour)
	return ports.OutboxRecord{
		Partition: partition,
		RouteID:   fixtureRoute,
		BindingID: fixtureBinding,
		Address:   fixtureAddress,
		Envelope:  env,
	}
}

// newRecords builds records from..to-1 of partition.
func newRecords(partition string, from, to int) []ports.OutboxRecord {
	out := make([]ports.OutboxRecord, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, newRecord(partition, i))
	}
	return out
}

// recordView is the comparable content of an outbox record.
type recordView struct {
	ID, Partition, RouteID, BindingID, Address string
	Envelope                                   envView
	ReplayCount                                int
	LastError                                  string
	CreatedAt, FirstAttemptAt, NextAttemptAt   time.Time
}

func recordViewOf(r ports.OutboxRecord) recordView {
	v := recordView{
		ID: r.ID, Partition: r.Partition, RouteID: r.RouteID, BindingID: r.BindingID, Address: r.Address,
		ReplayCount: r.ReplayCount, LastError: r.LastError,
		CreatedAt: r.CreatedAt, FirstAttemptAt: r.FirstAttemptAt, NextAttemptAt: r.NextAttemptAt,
	}
	if r.Envelope != nil {
		v.Envelope = viewOf(r.Envelope)
	}
	return v
}

// storeCmpOpts treat nil and empty payloads and header maps alike; times
// compare with time.Time.Equal, so locations and monotonic readings do
// not matter.
var storeCmpOpts = cmp.Options{cmpopts.EquateEmpty()}

// ids returns the IDs of records, in order.
func ids(recs []ports.OutboxRecord) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

// persist stores recs or fails the test, and returns them with the IDs and
// CreatedAt Persist filled in.
func persist(ctx context.Context, t *testing.T, s ports.OutboxStore, recs []ports.OutboxRecord) []ports.OutboxRecord {
	t.Helper()
	if err := s.Persist(ctx, recs); err != nil {
		t.Fatalf("Persist of %d records: %v", len(recs), err)
	}
	return recs
}

// claim claims or fails the test.
func claim(ctx context.Context, t *testing.T, s ports.OutboxStore, partition string, tk ports.LeaseToken, limit int) []ports.OutboxRecord {
	t.Helper()
	got, err := s.Claim(ctx, partition, tk, limit)
	if err != nil {
		t.Fatalf("Claim(%q, version %d, %d): %v", partition, tk.Version, limit, err)
	}
	if len(got) > limit {
		t.Fatalf("Claim(%q, limit %d) returned %d records", partition, limit, len(got))
	}
	return got
}

// claimIDs claims and returns the IDs of what it got.
func claimIDs(ctx context.Context, t *testing.T, s ports.OutboxStore, partition string, tk ports.LeaseToken, limit int) []string {
	t.Helper()
	return ids(claim(ctx, t, s, partition, tk, limit))
}

// wantClaim claims with a generous limit and compares the IDs it got.
func wantClaim(ctx context.Context, t *testing.T, s ports.OutboxStore, partition string, tk ports.LeaseToken, want []string) {
	t.Helper()
	got := claimIDs(ctx, t, s, partition, tk, len(want)+10)
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Claim(%q) IDs (-want +got):\n%s", partition, diff)
	}
}

// wantDepth checks the depth of partition.
func wantDepth(ctx context.Context, t *testing.T, s ports.OutboxStore, partition string, want int) {
	t.Helper()
	got, err := s.Depth(ctx, partition)
	if err != nil {
		t.Fatalf("Depth(%q): %v", partition, err)
	}
	if got != want {
		t.Errorf("Depth(%q) = %d, want %d", partition, got, want)
	}
}

// complete completes or fails the test.
func complete(ctx context.Context, t *testing.T, s ports.OutboxStore, id string, tk ports.LeaseToken) {
	t.Helper()
	if err := s.Complete(ctx, id, tk); err != nil {
		t.Fatalf("Complete(%q, version %d): %v", id, tk.Version, err)
	}
}

// replay replays or fails the test.
func replay(ctx context.Context, t *testing.T, s ports.OutboxStore, id string, tk ports.LeaseToken, cause error, next time.Time) {
	t.Helper()
	if err := s.Replay(ctx, id, tk, cause, next); err != nil {
		t.Fatalf("Replay(%q, version %d): %v", id, tk.Version, err)
	}
}

// newDLQEntry builds the i-th distinguishable DLQ entry, failed last at
// last.
func newDLQEntry(i int, route string, cat ports.DLQCategory, last time.Time) ports.DLQEntry {
	env := numbered("dlq", i)
	return ports.DLQEntry{
		Envelope:       env,
		RouteID:        route,
		BindingID:      fixtureBinding,
		Address:        fixtureAddress,
		ErrorClass:     "permanent",
		ErrorCode:      "NOT_AUTHORIZED",
		ErrorMessage:   fmt.Sprintf("attempt %d refused", i),
		Category:       cat,
		Attempts:       i + 1,
		FirstFailureAt: last.Add(-time.Minute),
		LastFailureAt:  last,
	}
}

// dlqView is the comparable content of a DLQ entry.
type dlqView struct {
	ID                                  string
	Envelope                            envView
	RouteID, BindingID, Address         string
	ErrorClass, ErrorCode, ErrorMessage string
	Category                            ports.DLQCategory
	Attempts                            int
	FirstFailureAt, LastFailureAt       time.Time
}

func dlqViewOf(e ports.DLQEntry) dlqView {
	v := dlqView{
		ID: e.ID, RouteID: e.RouteID, BindingID: e.BindingID, Address: e.Address,
		ErrorClass: e.ErrorClass, ErrorCode: e.ErrorCode, ErrorMessage: e.ErrorMessage,
		Category: e.Category, Attempts: e.Attempts,
		FirstFailureAt: e.FirstFailureAt, LastFailureAt: e.LastFailureAt,
	}
	if e.Envelope != nil {
		v.Envelope = viewOf(e.Envelope)
	}
	return v
}

// envelopeIDs returns the envelope IDs of entries, in order; DLQ tests
// identify entries by their message because Write keeps the entry ID to
// itself.
func envelopeIDs(entries []ports.DLQEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		if e.Envelope != nil {
			out[i] = e.Envelope.ID
		}
	}
	return out
}
