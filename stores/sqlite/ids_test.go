package sqlite

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestRecordIDRoundTrip(t *testing.T) {
	for _, c := range []struct{ seq, salt int64 }{
		{1, 0}, {42, -1}, {math.MaxInt64, math.MinInt64}, {1 << 40, 0x0123456789abcdef},
	} {
		id := formatRecordID(c.seq, c.salt)
		if len(id) != recordIDLen || !strings.HasPrefix(id, recordIDPrefix) {
			t.Errorf("formatRecordID(%d, %d) = %q", c.seq, c.salt, id)
		}
		seq, salt, ok := parseRecordID(id)
		if diff := cmp.Diff([]any{c.seq, c.salt, true}, []any{seq, salt, ok}); diff != "" {
			t.Errorf("parseRecordID(%q) (-want +got):\n%s", id, diff)
		}
	}
	for _, id := range []string{
		"", "caller-chosen-id", "0190a3b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b",
		"ob-000000000000002a-000000000000000", "ob-000000000000002a_0000000000000000",
		"ob-00000000000000zz-0000000000000000", "xx-000000000000002a-0000000000000000",
		"ob-+00000000000002a-0000000000000000",
	} {
		if _, _, ok := parseRecordID(id); ok {
			t.Errorf("parseRecordID(%q) accepted a string the store never makes", id)
		}
	}
}

// FuzzParseRecordID: whatever a caller passes as an ID, parsing never
// panics, and a string it accepts is exactly what formatRecordID makes of
// the parsed values, so two different IDs never name the same row.
func FuzzParseRecordID(f *testing.F) {
	f.Add(formatRecordID(7, 99))
	f.Add("caller-chosen-id")
	f.Add("ob-ffffffffffffffff-ffffffffffffffff")
	f.Add("ob-FFFFFFFFFFFFFFFF-0000000000000000")
	f.Fuzz(func(t *testing.T, id string) {
		seq, salt, ok := parseRecordID(id)
		if ok && formatRecordID(seq, salt) != id {
			t.Errorf("parseRecordID(%q) = %d, %d but those format as %q", id, seq, salt, formatRecordID(seq, salt))
		}
	})
}

func TestCallerIDsThatLookStoreMade(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	ctx := t.Context()
	made := persistN(t, s, "p", 1)[0]
	seq, salt, _ := parseRecordID(made)

	// The ID of a stored record is a duplicate, whoever passes it.
	dup := testRecords("p", 1)
	dup[0].ID = made
	if err := s.Persist(ctx, dup); !errors.Is(err, fault.ErrDuplicateRecord) {
		t.Errorf("Persist with a stored record's ID = %v, want DUPLICATE_RECORD", err)
	}
	// A string in the store's format that names no row is an ordinary
	// caller ID: it is kept and found again.
	lookalike := formatRecordID(seq, salt+1)
	other := testRecords("p", 1)
	other[0].ID = lookalike
	if err := s.Persist(ctx, other); err != nil {
		t.Fatalf("Persist with an unused store-format ID: %v", err)
	}
	if got := claimIDs(t, s, "p"); !cmp.Equal(got, []string{made, lookalike}) {
		t.Errorf("claimed %q, want %q", got, []string{made, lookalike})
	}
	if err := s.Replay(ctx, lookalike, ports.LeaseToken{}, errors.New("later"), time.Now()); err != nil {
		t.Errorf("Replay(%s) = %v", lookalike, err)
	}
	if err := s.CompleteBatch(ctx, []string{lookalike, made}, ports.LeaseToken{}); err != nil {
		t.Fatal(err)
	}
	wantDepthIs(t, s, "p", 0)
}

func TestReusedSequenceNumberDoesNotReviveAnOldID(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	ctx := t.Context()
	old := persistN(t, s, "p", 1)[0]
	if err := s.Complete(ctx, old, ports.LeaseToken{}); err != nil {
		t.Fatal(err)
	}
	// With the newest row gone SQLite hands out its sequence number again.
	fresh := persistN(t, s, "p", 1)[0]
	oldSeq, _, _ := parseRecordID(old)
	freshSeq, _, _ := parseRecordID(fresh)
	if oldSeq != freshSeq {
		t.Logf("sequence %d was not reused (got %d); the check below still holds", oldSeq, freshSeq)
	}
	if err := s.Replay(ctx, old, ports.LeaseToken{}, errors.New("x"), time.Now()); !errors.Is(err, fault.ErrNotFound) {
		t.Errorf("Replay of the completed record = %v, want NOT_FOUND", err)
	}
	if err := s.Complete(ctx, old, ports.LeaseToken{}); err != nil {
		t.Fatal(err)
	}
	wantDepthIs(t, s, "p", 1)
}

func TestLookupsUseKeys(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	for _, c := range []struct {
		name, query string
		args        []any
	}{
		{"resolve", "SELECT seq, partition FROM outbox WHERE (seq = ?1 AND salt = ?2 AND ext_id IS NULL) OR ext_id = ?3", []any{1, 2, "x"}},
		{"resolve caller ID", "SELECT seq, partition FROM outbox WHERE (seq = ?1 AND salt = ?2 AND ext_id IS NULL) OR ext_id = ?3", []any{nil, nil, "x"}},
		{"delete", "DELETE FROM outbox WHERE seq IN (SELECT value FROM json_each(?1))", []any{"[1]"}},
	} {
		name := c.name
		plan := queryPlan(t, s, c.query, c.args...)
		if strings.Contains(plan, "SCAN outbox") {
			t.Errorf("%s plan %q scans the outbox", name, plan)
		}
	}
}

// claimIDs claims every due record of partition and returns their IDs.
func claimIDs(t *testing.T, s *Store, partition string) []string {
	t.Helper()
	var ids []string
	for _, r := range claimAll(t, s, partition) {
		ids = append(ids, r.ID)
	}
	return ids
}

func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.reads.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return fmt.Sprint(plan)
}
