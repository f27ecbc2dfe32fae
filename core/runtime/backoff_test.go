package runtime_test

import (
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/runtime"
)

func TestBackoffDelay(t *testing.T) {
	b := runtime.Backoff{Initial: time.Second, Max: 10 * time.Second, Multiplier: 2, Jitter: ptr(0.0)}
	half := runtime.Backoff{Initial: time.Second, Max: 10 * time.Second, Multiplier: 2, Jitter: ptr(0.5)}
	tests := []struct {
		name    string
		b       runtime.Backoff
		attempt int
		rnd     float64
		want    time.Duration
	}{
		{"first attempt is the initial interval", b, 1, 0.9, time.Second},
		{"attempt zero is treated as the first", b, 0, 0, time.Second},
		{"grows by the multiplier", b, 3, 0, 4 * time.Second},
		{"capped at max", b, 10, 0, 10 * time.Second},
		{"huge attempt does not overflow", b, 1 << 20, 0, 10 * time.Second},
		{"multiplier one is a fixed interval", runtime.Backoff{Initial: time.Second, Max: time.Minute, Multiplier: 1, Jitter: ptr(0.0)}, 7, 0, time.Second},
		{"equal jitter lower bound", half, 2, 0, time.Second},
		{"equal jitter upper part", half, 2, 0.5, 1500 * time.Millisecond},
		{"defaults: 1s initial, 20% jitter", runtime.Backoff{}, 1, 0, 800 * time.Millisecond},
		{"defaults cap at 30s", runtime.Backoff{}, 50, 1, 30 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.b.Delay(tc.attempt, tc.rnd); got != tc.want {
				t.Errorf("Delay(%d, %v) = %v, want %v", tc.attempt, tc.rnd, got, tc.want)
			}
		})
	}
}
