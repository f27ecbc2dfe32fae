package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeV2Store makes a file as a build with schema version 2 left it: one
// record that failed twice and waits unclaimed, and one that a drainer
// claimed and never settled, in partition "p".
func writeV2Store(t *testing.T, path string) {
	t.Helper()
	db := openRaw(t, path)
	stmts := []string{"PRAGMA journal_mode = WAL"}
	for _, m := range migrations()[:2] {
		stmts = append(stmts, m.stmts...)
		stmts = append(stmts, fmt.Sprintf(
			"INSERT INTO schema_migrations (version, name, applied_at) VALUES (%d, 'old', 0)", m.version))
	}
	stmts = append(stmts,
		fmt.Sprintf("PRAGMA application_id = %d", applicationID),
		"PRAGMA user_version = 2")
	zero := encodeTime(time.Time{})
	for _, row := range []struct {
		salt, replays int
		claimOwner    string
	}{{1, 2, "NULL"}, {2, 0, "'crashed-drainer'"}} {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO outbox (salt, partition, route_id, binding_id, address,
			env_id, subject, headers, env_created_at, env_expires_at, payload,
			replay_count, last_error, created_at, first_attempt_at, next_attempt_at, available_at,
			claim_owner, claim_version, claimed_at)
			VALUES (%d, 'p', 'r', 'b', 'q://x', 'env-%d', 'orders.created', NULL, 0, %d, x'01',
			%d, '', 0, %d, 0, 0, %s, 0, 0)`, row.salt, row.salt, int64(1)<<62, row.replays, zero, row.claimOwner))
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

// TestMigrationGivesOlderRowsTheClaimsTheyProvablyHad checks that rows
// written before claims were counted start from what can be known: one
// claim per replay, and one more for a claim still held, so that the
// poison gate does not start from zero for a record that has been
// crashing drainers since before the upgrade.
func TestMigrationGivesOlderRowsTheClaimsTheyProvablyHad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	writeV2Store(t, path)

	s := openTestStore(t, path)
	var got []int
	for _, r := range claimAll(t, s, "p") {
		got = append(got, r.ClaimCount)
	}
	// Each count includes the claim just made.
	if diff := cmp.Diff([]int{3, 2}, got); diff != "" {
		t.Errorf("ClaimCount of the migrated records after one more claim (-want +got):\n%s", diff)
	}
}
