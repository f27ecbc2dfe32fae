package bench

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStripes(t *testing.T) {
	errStripe := errors.New("stripe failed")
	tests := []struct {
		name      string
		pubs, n   int
		failFirst int // stripe whose first number this is fails; -1 none
		wantFirst []int
		wantErr   bool
	}{
		{name: "default publishers", pubs: 0, n: 10, failFirst: -1, wantFirst: []int{0, 1, 2, 3}},
		{name: "more publishers than messages", pubs: 3, n: 2, failFirst: -1, wantFirst: []int{0, 1, 2}},
		{name: "one publisher fails, the others finish", pubs: 2, n: 5, failFirst: 1, wantFirst: []int{0, 1}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var firsts, seqs []int
			err := Stripes(context.Background(), tt.pubs, 0, func(ctx context.Context, pace *Pacer, first, step int) error {
				mu.Lock()
				defer mu.Unlock()
				firsts = append(firsts, first)
				if first == tt.failFirst {
					return errStripe
				}
				for i := first; i < tt.n; i += step {
					if err := pace.Wait(ctx, i); err != nil {
						return err
					}
					seqs = append(seqs, i)
				}
				return nil
			})
			if got := err != nil; got != tt.wantErr || (tt.wantErr && !errors.Is(err, errStripe)) {
				t.Fatalf("Stripes error = %v, want error %v", err, tt.wantErr)
			}
			slices.Sort(firsts)
			if diff := cmp.Diff(tt.wantFirst, firsts); diff != "" {
				t.Errorf("stripes started (-want +got):\n%s", diff)
			}
			if tt.wantErr {
				return
			}
			slices.Sort(seqs)
			want := make([]int, tt.n)
			for i := range want {
				want[i] = i
			}
			if diff := cmp.Diff(want, seqs); diff != "" {
				t.Errorf("sequence numbers sent (-want +got):\n%s", diff)
			}
		})
	}
}
