package dynamodb

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// TestFencedWritesMetric checks that gobridge_dynamodb_fenced_writes_total
// and Stats().FencedWrites count the outbox writes refused for a stale
// token, on the store that refused them, and nothing else. Store old
// drains with version 1; store newer shares its tables with version 2.
func TestFencedWritesMetric(t *testing.T) {
	const partition = "orders/to-hook"
	v1 := ports.LeaseToken{Owner: "old", Version: 1}
	v2 := ports.LeaseToken{Owner: "new", Version: 2}
	type stores struct{ old, newer *Store }
	tests := []struct {
		name string
		// run drives the stores over three persisted records and returns
		// the errors of old's writes that must be STALE_FENCING_TOKEN.
		run       func(t *testing.T, s stores, recs []ports.OutboxRecord) []error
		wantOld   float64
		wantNewer float64
	}{
		{
			name: "current token",
			run: func(t *testing.T, s stores, recs []ports.OutboxRecord) []error {
				claimAll(t, s.old, partition, v1, len(recs))
				for _, r := range recs {
					if err := s.old.Complete(t.Context(), r.ID, v1); err != nil {
						t.Fatal(err)
					}
				}
				return nil
			},
		},
		{
			name: "claim below the fence",
			run: func(t *testing.T, s stores, recs []ports.OutboxRecord) []error {
				claimAll(t, s.newer, partition, v2, len(recs))
				_, err := s.old.Claim(t.Context(), partition, v1, 10)
				return []error{err}
			},
			wantOld: 1,
		},
		{
			name: "complete and replay below the fence",
			run: func(t *testing.T, s stores, recs []ports.OutboxRecord) []error {
				claimAll(t, s.old, partition, v1, len(recs))
				// The new owner's first claim raises the fence; old's
				// claims are not stale yet, so it takes nothing.
				if got, err := s.newer.Claim(t.Context(), partition, v2, 10); err != nil || len(got) != 0 {
					t.Fatalf("newer's Claim = %d records, %v; want none", len(got), err)
				}
				return []error{
					s.old.Complete(t.Context(), recs[0].ID, v1),
					s.old.Replay(t.Context(), recs[1].ID, v1, errors.New("timeout"), testStart()),
				}
			},
			wantOld: 2,
		},
		{
			name: "record stamped by a newer token",
			run: func(t *testing.T, s stores, recs []ports.OutboxRecord) []error {
				claimAll(t, s.old, partition, v1, len(recs))
				// The gap between the fence read and the guarded write:
				// old passed the fence, and a newer token stamped the
				// records meanwhile.
				for _, r := range recs[:2] {
					stamp(t, s.old, r.ID, 2)
				}
				return []error{
					s.old.Complete(t.Context(), recs[0].ID, v1),
					s.old.Replay(t.Context(), recs[1].ID, v1, errors.New("timeout"), testStart()),
				}
			},
			wantOld: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			emu := newEmulator(t)
			prefix := emu.prefix()
			clk := clock.NewFake(testStart())
			mOld, mNew := telemetry.NewMemory(), telemetry.NewMemory()
			s := stores{
				old:   emu.open(t, prefix, clk, WithMetrics(mOld, "old")),
				newer: emu.open(t, prefix, clk, WithMetrics(mNew, "newer")),
			}
			recs := records(partition, 3, 16)
			if err := s.old.Persist(t.Context(), recs); err != nil {
				t.Fatal(err)
			}
			for i, err := range tc.run(t, s, recs) {
				if !errors.Is(err, fault.ErrStaleFencingToken) {
					t.Errorf("old's write %d = %v, want STALE_FENCING_TOKEN", i, err)
				}
			}
			want := map[string]float64{"old metric": tc.wantOld, "old stats": tc.wantOld,
				"newer metric": tc.wantNewer, "newer stats": tc.wantNewer}
			got := map[string]float64{
				"old metric":   mOld.Value("gobridge_dynamodb_fenced_writes_total", "old"),
				"old stats":    float64(s.old.Stats().FencedWrites),
				"newer metric": mNew.Value("gobridge_dynamodb_fenced_writes_total", "newer"),
				"newer stats":  float64(s.newer.Stats().FencedWrites),
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fenced writes (-want +got):\n%s", diff)
			}
		})
	}
}

// claimAll claims partition with tok and wants n records.
func claimAll(t *testing.T, s *Store, partition string, tok ports.LeaseToken, n int) {
	t.Helper()
	got, err := s.Claim(t.Context(), partition, tok, n+10)
	if err != nil || len(got) != n {
		t.Fatalf("Claim with version %d = %d records, %v; want %d", tok.Version, len(got), err, n)
	}
}

// stamp sets record id's claim version as a claim with version v would.
func stamp(t *testing.T, s *Store, id string, v int64) {
	t.Helper()
	loc, found, err := s.locate(t.Context(), id)
	if err != nil || !found {
		t.Fatalf("locate %s = %v, %v", id, found, err)
	}
	_, err = s.api.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{
		TableName: aws.String(s.tables.outbox), Key: keyS(loc.pk, loc.sk),
		UpdateExpression: aws.String("SET cv = :v"), ExpressionAttributeValues: values(":v", avN(v)),
	})
	if err != nil {
		t.Fatal(err)
	}
}
