package bench

import (
	"context"
	"math"
	"testing"
	"time"
)

func TestMedianRatioSpread(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name           string
		xs             []float64
		median, lo, hi float64
	}{
		{"odd count", []float64{3, 1, 2}, 2, 1, 3},
		{"even count averages the middle two", []float64{4, 1, 3, 2}, 2.5, 1, 4},
		{"NaN values are ignored", []float64{nan, 5, nan, 7, 6}, 6, 5, 7},
		{"no values", nil, nan, nan, nan},
		{"only NaN", []float64{nan}, nan, nan, nan},
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Median(tt.xs); !same(got, tt.median) {
				t.Errorf("Median = %v, want %v", got, tt.median)
			}
			lo, hi := Spread(tt.xs)
			if !same(lo, tt.lo) || !same(hi, tt.hi) {
				t.Errorf("Spread = %v..%v, want %v..%v", lo, hi, tt.lo, tt.hi)
			}
		})
	}
	for _, c := range []struct{ a, b, want float64 }{{3, 2, 1.5}, {1, 0, nan}, {nan, 1, nan}} {
		if got := Ratio(c.a, c.b); !same(got, c.want) {
			t.Errorf("Ratio(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestPacerDue(t *testing.T) {
	p := NewPacer(1000)
	for i, want := range map[int]time.Duration{0: 0, 1: time.Millisecond, 2500: 2500 * time.Millisecond} {
		if got := p.Due(i).Sub(p.start); got != want {
			t.Errorf("Due(%d) = start+%v, want start+%v", i, got, want)
		}
	}
	if got := NewPacer(0).Due(1e6); !got.Equal(NewPacer(0).start) && got.After(time.Now()) {
		t.Errorf("an unpaced message is due in the future: %v", got)
	}
	if err := NewPacer(0).Wait(context.Background(), 99); err != nil {
		t.Errorf("unpaced Wait = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := NewPacer(1).Wait(ctx, 1000); err == nil {
		t.Error("Wait on an ended context returned nil")
	}
}
