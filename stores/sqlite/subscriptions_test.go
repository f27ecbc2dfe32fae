package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestLedgerOnAFileFromBeforeTheLedgerTables opens a file written before
// schema step 5: the step adds the tables, the outbox keeps its records,
// and sessions start without a baseline.
func TestLedgerOnAFileFromBeforeTheLedgerTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	s := openTestStore(t, path)
	persistN(t, s, "p", 2)
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"DROP TABLE managed_subscription", "DROP TABLE managed_session",
		"DELETE FROM schema_migrations WHERE version = 5", "PRAGMA user_version = 4",
	} {
		execRaw(t, path, stmt)
	}
	s = openTestStore(t, path)
	wantDepthIs(t, s, "p", 2)
	if _, ok, err := s.LoadSubscriptions(t.Context(), "sess"); err != nil || ok {
		t.Fatalf("LoadSubscriptions after the upgrade: baselined %v, %v; want false, nil", ok, err)
	}
	want := []ports.ManagedSubscription{{Filter: "a/#", QoS: 1}}
	if err := s.SaveSubscriptions(t.Context(), "sess", want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.LoadSubscriptions(t.Context(), "sess")
	if err != nil || !ok {
		t.Fatalf("LoadSubscriptions: baselined %v, %v", ok, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("saved set (-want +got):\n%s", diff)
	}
}
