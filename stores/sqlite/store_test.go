package sqlite

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestClaimUsesTheIndexInOrder(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	text := queryPlan(t, s,
		"SELECT seq FROM outbox WHERE partition = ? AND available_at <= ? ORDER BY seq LIMIT ?", "p", 0, 10)
	if !strings.Contains(text, "COVERING INDEX outbox_claim") || strings.Contains(text, "TEMP B-TREE") {
		t.Errorf("claim plan %q, want a covering scan of outbox_claim without sorting", text)
	}
}

func TestRecordRoundTripsHeaderTypesAndTimes(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	env := messaging.NewEnvelope("orders.created", nil)
	env.Headers = map[string]any{"n": int32(7), "f": 2.5, "b": false, "raw": []byte{1, 2}, "s": "x"}
	env.CreatedAt = time.Date(1999, 12, 31, 23, 59, 59, 999999999, time.UTC)
	env.ExpiresAt = time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC) // beyond int64 nanoseconds: clamped
	recs := []ports.OutboxRecord{{Partition: "p", Envelope: env}}
	if err := s.Persist(t.Context(), recs); err != nil {
		t.Fatal(err)
	}
	got := claimAll(t, s, "p")
	if len(got) != 1 {
		t.Fatalf("claimed %d records", len(got))
	}
	g := got[0].Envelope
	if diff := cmp.Diff(env.Headers, g.Headers); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if g.Payload() != nil {
		t.Errorf("nil payload came back as %q", g.Payload())
	}
	if !g.CreatedAt.Equal(env.CreatedAt) {
		t.Errorf("CreatedAt %v, want %v", g.CreatedAt, env.CreatedAt)
	}
	if want := time.Unix(0, math.MaxInt64); !g.ExpiresAt.Equal(want) {
		t.Errorf("ExpiresAt beyond 2262 came back as %v, want the clamp %v", g.ExpiresAt, want)
	}
}

func TestPersistRejectsMissingEnvelope(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	recs := append(testRecords("p", 1), ports.OutboxRecord{Partition: "p"})
	if err := s.Persist(t.Context(), recs); !errors.Is(err, fault.ErrInvalidPayload) {
		t.Errorf("Persist with a nil envelope = %v, want INVALID_PAYLOAD", err)
	}
	wantDepthIs(t, s, "p", 0)
}

func TestDLQEntryWithoutEnvelope(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	e := ports.DLQEntry{ID: "e1", RouteID: "r", Category: ports.DLQRejected, ErrorMessage: "no message"}
	if err := s.Write(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(t.Context(), "e1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Envelope != nil || got.ErrorMessage != e.ErrorMessage || !got.FirstFailureAt.IsZero() {
		t.Errorf("Get = %+v, want the entry without an envelope and zero times", got)
	}
}

func TestDLQRejectsForeignCursor(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	for _, c := range []string{"garbage", encodeCursor(0), "ZGxxMTotNQ"} {
		if _, err := s.List(t.Context(), ports.DLQFilter{}, c, 10); !errors.Is(err, fault.ErrInvalidConfig) {
			t.Errorf("List with cursor %q = %v, want INVALID_CONFIG", c, err)
		}
	}
}

func TestCompleteBatch(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	ctx := t.Context()
	p := persistN(t, s, "p", 3)
	q := persistN(t, s, "q", 1)
	if _, err := s.Claim(ctx, "q", ports.LeaseToken{Owner: "x", Version: 3}, 1); err != nil {
		t.Fatal(err)
	}
	// A stale token for q's record refuses the whole batch.
	err := s.CompleteBatch(ctx, []string{p[0], q[0], p[1]}, ports.LeaseToken{Owner: "y", Version: 2})
	if !errors.Is(err, fault.ErrStaleFencingToken) {
		t.Errorf("CompleteBatch with a stale token for one record = %v, want STALE_FENCING_TOKEN", err)
	}
	wantDepthIs(t, s, "p", 3)
	if err := s.CompleteBatch(ctx, []string{p[0], p[1], "unknown"}, ports.LeaseToken{}); err != nil {
		t.Fatal(err)
	}
	wantDepthIs(t, s, "p", 1)
	if err := s.CompleteBatch(ctx, nil, ports.LeaseToken{}); err != nil {
		t.Errorf("empty CompleteBatch = %v", err)
	}
}
