package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// TestSharedStoresOpenTogether: shared stores (the processes of a
// clustered bridge) open one file together, and the lock keeps a store
// that is not shared away from them, and them from it.
func TestSharedStoresOpenTogether(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	a, err := Open(ctx, path, WithShared(true))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, path, WithShared(true))
	if err != nil {
		t.Fatalf("a second shared store: %v", err)
	}
	ids := persistN(t, a, "p", 2)
	recs, err := b.Claim(ctx, "p", ports.LeaseToken{Owner: "b", Version: 1}, 10)
	if err != nil || len(recs) != 2 {
		t.Fatalf("the second store claimed %d records (%v), want the 2 the first persisted", len(recs), err)
	}
	if _, err := Open(ctx, path); fault.CodeOf(err) != fault.CodeUnavailable {
		t.Fatalf("an exclusive store beside shared ones: %v, want UNAVAILABLE", err)
	}
	if err := b.Complete(ctx, ids[0], ports.LeaseToken{Owner: "b", Version: 1}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Store{a, b} {
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("an exclusive store once the shared ones closed: %v", err)
	}
	defer func() { _ = c.Close(ctx) }()
	if _, err := Open(ctx, path, WithShared(true)); fault.CodeOf(err) != fault.CodeUnavailable {
		t.Fatalf("a shared store beside an exclusive one: %v, want UNAVAILABLE", err)
	}
}

// TestFencedWritesAreCounted: a write with a stale token is refused and
// counted, in Stats and in gobridge_sqlite_fenced_writes_total.
func TestFencedWritesAreCounted(t *testing.T) {
	ctx := context.Background()
	meter := telemetry.NewMemory()
	s := openTestStore(t, filepath.Join(t.TempDir(), "f.db"), WithMetrics(meter, "obx"))
	ids := persistN(t, s, "p", 2)
	old, cur := ports.LeaseToken{Owner: "a", Version: 1}, ports.LeaseToken{Owner: "b", Version: 2}
	if _, err := s.Claim(ctx, "p", old, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(ctx, "p", cur, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(ctx, ids[0], old); fault.CodeOf(err) != fault.CodeStaleFencingToken {
		t.Fatalf("complete with the old token: %v, want STALE_FENCING_TOKEN", err)
	}
	if _, err := s.Claim(ctx, "p", old, 1); fault.CodeOf(err) != fault.CodeStaleFencingToken {
		t.Fatalf("claim with the old token: %v, want STALE_FENCING_TOKEN", err)
	}
	if got := s.Stats().FencedWrites; got != 2 {
		t.Errorf("Stats().FencedWrites = %d, want 2", got)
	}
	if got := meter.Count("gobridge_sqlite_fenced_writes_total", "obx"); got != 2 {
		t.Errorf("gobridge_sqlite_fenced_writes_total = %d, want 2", got)
	}
}
