package bench

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestCounterTally(t *testing.T) {
	t0 := time.Unix(1000, 0)
	type arrival struct {
		run, seq uint64
		sentMs   int // publish time, ms after t0
		atMs     int // arrival time, ms after t0
	}
	tests := []struct {
		name     string
		n        int
		arrivals []arrival
		want     Tally
		done     bool
	}{
		{
			name:     "every message once, in order",
			n:        3,
			arrivals: []arrival{{7, 0, 0, 10}, {7, 1, 0, 20}, {7, 2, 0, 30}},
			want: Tally{N: 3, Unique: 3, First: t0.Add(10 * time.Millisecond), Last: t0.Add(30 * time.Millisecond),
				P50: 20 * time.Millisecond, P99: 30 * time.Millisecond},
			done: true,
		},
		{
			name:     "duplicates, a stray run, an out-of-range seq and a gap",
			n:        4,
			arrivals: []arrival{{7, 0, 0, 5}, {7, 0, 0, 6}, {7, 2, 0, 7}, {8, 1, 0, 8}, {7, 9, 0, 9}, {7, 2, 0, 10}, {7, 0, 0, 11}},
			want: Tally{N: 4, Unique: 2, Duplicates: 3, Stray: 2, Missing: 2, MissingIDs: []uint64{1, 3},
				First: t0.Add(5 * time.Millisecond), Last: t0.Add(7 * time.Millisecond),
				P50: 5 * time.Millisecond, P99: 7 * time.Millisecond},
		},
		{
			name:     "an arrival stamped after it arrived has zero latency",
			n:        1,
			arrivals: []arrival{{7, 0, 50, 10}},
			want:     Tally{N: 1, Unique: 1, First: t0.Add(10 * time.Millisecond), Last: t0.Add(10 * time.Millisecond)},
			done:     true,
		},
		{
			name: "nothing arrived",
			n:    2,
			want: Tally{N: 2, Missing: 2, MissingIDs: []uint64{0, 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCounter(7, tt.n)
			for _, a := range tt.arrivals {
				c.Observe(Stamp{Run: a.run, Seq: a.seq, Sent: t0.Add(time.Duration(a.sentMs) * time.Millisecond)},
					t0.Add(time.Duration(a.atMs)*time.Millisecond))
			}
			if diff := cmp.Diff(tt.want, c.Tally(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("tally (-want +got):\n%s", diff)
			}
			select {
			case <-c.Done():
				if !tt.done {
					t.Error("Done closed before every message arrived")
				}
			default:
				if tt.done {
					t.Error("Done not closed after every message arrived")
				}
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one value", ms(4), 99, 4 * time.Millisecond},
		{"median of odd count", ms(1, 2, 3), 50, 2 * time.Millisecond},
		{"p50 of 1..100 is 50", ms(hundred...), 50, 50 * time.Millisecond},
		{"p99 of 1..100 is 99", ms(hundred...), 99, 99 * time.Millisecond},
		{"p100 is the maximum", ms(hundred...), 100, 100 * time.Millisecond},
		{"p0 is the minimum", ms(hundred...), 0, 1 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("Percentile(%v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

func TestTallyRate(t *testing.T) {
	t0 := time.Unix(0, 0)
	tests := []struct {
		name string
		t    Tally
		want float64
	}{
		{"1001 messages in one second", Tally{Unique: 1001, First: t0, Last: t0.Add(time.Second)}, 1000},
		{"one message has no rate", Tally{Unique: 1, First: t0, Last: t0}, 0},
		{"no time elapsed", Tally{Unique: 5, First: t0, Last: t0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.t.Rate(); got != tt.want {
				t.Errorf("Rate() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPayloadRoundTrip(t *testing.T) {
	s := Stamp{Run: 42, Seq: 99_999, Sent: time.Unix(1700000000, 123456789)}
	for _, size := range []int{0, 24, 256, 4096} {
		b := Encode(s, size)
		if len(b) != max(size, HeaderSize) {
			t.Errorf("Encode(size %d) has %d bytes", size, len(b))
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(s, got); diff != "" {
			t.Errorf("size %d (-want +got):\n%s", size, diff)
		}
	}
	if _, err := Decode(make([]byte, HeaderSize-1)); err != ErrShortPayload {
		t.Errorf("Decode(short) error = %v, want ErrShortPayload", err)
	}
}
