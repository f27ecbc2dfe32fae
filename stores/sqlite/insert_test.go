package sqlite

import (
	"database/sql"
	"database/sql/driver"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// storedRow is what an outbox row holds in the columns insertFreshSQL
// writes as literals or as one shared value.
type storedRow struct {
	ExtID                           sql.NullString
	ReplayCount                     int64
	ClaimCount                      int64
	LastError                       string
	FirstAttemptType                string
	FirstAttempt                    int64
	Created, NextAttempt, Available int64
}

// TestPersistStoresFreshAndHistoricRecordsAlike checks that a record
// stored by the 12-value insert for fresh records holds exactly what the
// 17-value insert would have stored, and that records with any history,
// a delay or a caller's ID still go through the full insert.
func TestPersistStoresFreshAndHistoricRecordsAlike(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	fake := clock.NewFake(now)
	first := now.Add(-time.Minute)
	later := now.Add(time.Hour)
	zero := encodeTime(time.Time{})
	tests := []struct {
		name  string
		edit  func(r *ports.OutboxRecord)
		fresh bool
		want  storedRow
	}{{
		name: "fresh", edit: func(*ports.OutboxRecord) {}, fresh: true,
		want: storedRow{FirstAttemptType: "integer", FirstAttempt: zero,
			Created: encodeTime(now), NextAttempt: encodeTime(now), Available: encodeTime(now)},
	}, {
		name: "due now, set by the caller", edit: func(r *ports.OutboxRecord) { r.NextAttemptAt = now }, fresh: true,
		want: storedRow{FirstAttemptType: "integer", FirstAttempt: zero,
			Created: encodeTime(now), NextAttempt: encodeTime(now), Available: encodeTime(now)},
	}, {
		name: "delayed", edit: func(r *ports.OutboxRecord) { r.NextAttemptAt = later },
		want: storedRow{FirstAttemptType: "integer", FirstAttempt: zero,
			Created: encodeTime(now), NextAttempt: encodeTime(later), Available: encodeTime(later)},
	}, {
		name: "with history",
		edit: func(r *ports.OutboxRecord) {
			r.ReplayCount, r.LastError, r.FirstAttemptAt = 2, "broker down", first
		},
		want: storedRow{ReplayCount: 2, LastError: "broker down", FirstAttemptType: "integer",
			FirstAttempt: encodeTime(first), Created: encodeTime(now), NextAttempt: encodeTime(now), Available: encodeTime(now)},
	}, {
		name: "claimed before", edit: func(r *ports.OutboxRecord) { r.ClaimCount = 3 },
		want: storedRow{ClaimCount: 3, FirstAttemptType: "integer", FirstAttempt: zero,
			Created: encodeTime(now), NextAttempt: encodeTime(now), Available: encodeTime(now)},
	}, {
		name: "caller's ID", edit: func(r *ports.OutboxRecord) { r.ID = "order-17" },
		want: storedRow{ExtID: sql.NullString{String: "order-17", Valid: true}, FirstAttemptType: "integer", FirstAttempt: zero,
			Created: encodeTime(now), NextAttempt: encodeTime(now), Available: encodeTime(now)},
	}}
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"), WithClock(fake))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := testRecords("p-"+tt.name, 1)
			tt.edit(&recs[0])
			// As Persist does before it fills the values.
			r := recs[0]
			if r.NextAttemptAt.IsZero() {
				r.NextAttemptAt = now
			}
			var vals [recordArgCount + 1]driver.NamedValue
			if n := fillRecordArgs(&vals, &r, now); (n == freshArgCount) != tt.fresh {
				t.Errorf("fillRecordArgs bound %d values, want the fresh insert: %v", n, tt.fresh)
			}
			if err := s.Persist(t.Context(), recs); err != nil {
				t.Fatal(err)
			}
			var got storedRow
			err := s.reads.QueryRowContext(t.Context(), `SELECT ext_id, replay_count, claim_count, last_error,
				typeof(first_attempt_at), first_attempt_at, created_at, next_attempt_at, available_at
				FROM outbox WHERE partition = ?`, recs[0].Partition).Scan(&got.ExtID, &got.ReplayCount,
				&got.ClaimCount, &got.LastError, &got.FirstAttemptType, &got.FirstAttempt, &got.Created, &got.NextAttempt, &got.Available)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stored row (-want +got):\n%s", diff)
			}
		})
	}
	if zero != math.MinInt64 {
		t.Errorf("the zero time is stored as %d; insertFreshSQL writes math.MinInt64", zero)
	}
}
