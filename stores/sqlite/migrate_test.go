package sqlite

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// writeV1Store makes a file as a build with schema version 1 left it, with
// one pending record per ID in partition "p".
func writeV1Store(t *testing.T, path string, ids ...string) {
	t.Helper()
	db := openRaw(t, path)
	stmts := append([]string{"PRAGMA journal_mode = WAL"}, migrations()[0].stmts...)
	stmts = append(stmts,
		"INSERT INTO schema_migrations (version, name, applied_at) VALUES (1, 'v1', 0)",
		fmt.Sprintf("PRAGMA application_id = %d", applicationID),
		"PRAGMA user_version = 1")
	for i, id := range ids {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO outbox (id, partition, route_id, binding_id, address,
			env_id, subject, headers, env_created_at, env_expires_at, payload,
			replay_count, last_error, created_at, first_attempt_at, next_attempt_at, available_at)
			VALUES ('%s', 'p', 'r', 'b', 'q://x', 'env-%d', 'orders.created', NULL, 0, %d, x'0102',
			%d, '', 0, %d, 0, 0)`, id, i, int64(1)<<62, i, encodeTime(time.Time{})))
	}
	for _, st := range stmts {
		if _, err := db.Exec(st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestMigrationFromVersion1KeepsRecordsAndTheirIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	old := []string{"0190a3b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b", "0190a3b2-7c1d-7e4f-8a9b-0c1d2e3f4a5c", "0190a3b2-7c1d-7e4f-8a9b-0c1d2e3f4a5d"}
	writeV1Store(t, path, old...)

	s := openTestStore(t, path)
	ctx := t.Context()
	wantDepthIs(t, s, "p", 3)
	newer := persistN(t, s, "p", 1)

	claimed := claimAll(t, s, "p")
	var got []string
	for _, r := range claimed {
		got = append(got, r.ID)
	}
	if diff := cmp.Diff(append(old, newer...), got); diff != "" {
		t.Errorf("claimed IDs after the upgrade, in order (-want +got):\n%s", diff)
	}
	if r := claimed[1]; r.ReplayCount != 1 || r.Envelope.ID != "env-1" || string(r.Envelope.PayloadView()) != "\x01\x02" {
		t.Errorf("migrated record %+v lost its contents", r)
	}
	// The old IDs still settle their records, one at a time and in a batch.
	if err := s.Complete(ctx, old[0], ports.LeaseToken{}); err != nil {
		t.Fatal(err)
	}
	if err := s.CompleteBatch(ctx, []string{old[1], newer[0]}, ports.LeaseToken{}); err != nil {
		t.Fatal(err)
	}
	wantDepthIs(t, s, "p", 1)
	// An old ID is still taken.
	dup := testRecords("p", 1)
	dup[0].ID = old[2]
	if err := s.Persist(ctx, dup); !errors.Is(err, fault.ErrDuplicateRecord) {
		t.Errorf("Persist with the migrated ID %s = %v, want DUPLICATE_RECORD", old[2], err)
	}
}
