package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestStreamLogConformance(t *testing.T) {
	conformance.RunStreamLog(t, func(t *testing.T) conformance.StreamLogHarness {
		r := newReopener(t)
		return conformance.StreamLogHarness{
			Log: r.cur, Clock: r.clock,
			Reopen: func(t *testing.T) ports.StreamLog { return r.reopen(t) },
			Close:  r.close,
		}
	})
}

// TestStreamLogOnAFileFromBeforeTheStreamTables opens a file written
// before schema step 4: the step adds the tables, the outbox keeps its
// records, and the log works.
func TestStreamLogOnAFileFromBeforeTheStreamTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	s := openTestStore(t, path)
	persistN(t, s, "p", 2)
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"DROP TABLE managed_subscription", "DROP TABLE managed_session",
		"DROP TABLE stream_event", "DROP TABLE stream_channel",
		"DELETE FROM schema_migrations WHERE version >= 4", "PRAGMA user_version = 3",
	} {
		execRaw(t, path, stmt)
	}
	s = openTestStore(t, path)
	wantDepthIs(t, s, "p", 2)
	first, err := s.AppendEvents(t.Context(), "c", [][]byte{[]byte("a"), []byte("b")})
	if err != nil || first != 1 {
		t.Fatalf("AppendEvents after the upgrade: %d, %v", first, err)
	}
	span, err := s.EventSpan(t.Context(), "c")
	if err != nil || span != (ports.StreamSpan{First: 1, Last: 2}) {
		t.Errorf("EventSpan after the upgrade: %+v, %v", span, err)
	}
}

// TestStreamLogAppendsALargeBatch appends more events in one call than
// one INSERT statement stores.
func TestStreamLogAppendsALargeBatch(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "big.db"))
	events := make([][]byte, 2*appendRows+50)
	for i := range events {
		events[i] = fmt.Appendf(nil, "e%d", i)
	}
	if _, err := s.AppendEvents(t.Context(), "c", events[:1]); err != nil {
		t.Fatal(err)
	}
	first, err := s.AppendEvents(t.Context(), "c", events[1:])
	if err != nil || first != 2 {
		t.Fatalf("AppendEvents: first %d, %v; want 2", first, err)
	}
	var got [][]byte
	for after := uint64(0); ; {
		page, err := s.ReadEvents(t.Context(), "c", after, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, e := range page {
			if e.Seq != after+1 {
				t.Fatalf("seq %d after %d", e.Seq, after)
			}
			after = e.Seq
			got = append(got, e.Data)
		}
	}
	if diff := cmp.Diff(events, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
