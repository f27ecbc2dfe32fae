package runtime

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDrainerPacing(t *testing.T) {
	adaptive := OutboxPolicy{BatchSize: 10, MaxBatchSize: 40,
		Strategy: DrainStrategy{Type: AdaptiveBackoff, MinInterval: 10 * time.Millisecond, MaxInterval: 50 * time.Millisecond}}.withDefaults()
	fixed := OutboxPolicy{Interval: 30 * time.Millisecond, BatchSize: 10}.withDefaults()
	type step struct {
		Claimed int
		Wait    time.Duration
		Batch   int
	}
	tests := []struct {
		name    string
		pol     OutboxPolicy
		claimed []int
		want    []step
	}{
		{"adaptive backs off while empty and resets on work", adaptive, []int{0, 0, 0, 0, 3, 0},
			[]step{{0, 10 * time.Millisecond, 10}, {0, 20 * time.Millisecond, 10}, {0, 40 * time.Millisecond, 10},
				{0, 50 * time.Millisecond, 10}, {3, 0, 10}, {0, 10 * time.Millisecond, 10}}},
		{"full claims grow the batch up to the cap, small ones shrink it", adaptive, []int{10, 20, 40, 40, 5, 2},
			[]step{{10, 0, 20}, {20, 0, 40}, {40, 0, 40}, {40, 0, 40}, {5, 0, 20}, {2, 0, 10}}},
		{"fixed poll waits the interval when empty", fixed, []int{0, 4, 0},
			[]step{{0, 30 * time.Millisecond, 10}, {4, 0, 10}, {0, 30 * time.Millisecond, 10}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dr := &drainer{pol: tc.pol, batch: tc.pol.BatchSize, interval: tc.pol.Strategy.MinInterval}
			var got []step
			for _, n := range tc.claimed {
				w := dr.nextWait(n, nil)
				got = append(got, step{n, w, dr.batch})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pacing (-want +got):\n%s", diff)
			}
		})
	}
}
