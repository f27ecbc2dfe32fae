package sqlite

import (
	"math"
	"time"
)

// Times are stored as INTEGER nanoseconds since the Unix epoch, so that
// they compare and index as numbers. The zero time.Time is stored as
// math.MinInt64, which sorts before every real instant, exactly like the
// zero time does in Go. Instants outside the int64 range (before 1678 or
// after 2262) are clamped to its ends.

func encodeTime(t time.Time) int64 {
	switch {
	case t.IsZero():
		return math.MinInt64
	case t.Before(time.Unix(0, math.MinInt64+1)):
		return math.MinInt64 + 1
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	}
	return t.UnixNano()
}

func decodeTime(n int64) time.Time {
	if n == math.MinInt64 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// addClamped returns n+d without wrapping around int64.
func addClamped(n int64, d time.Duration) int64 {
	if d > 0 && n > math.MaxInt64-int64(d) {
		return math.MaxInt64
	}
	if d < 0 && n < math.MinInt64+1-int64(d) {
		return math.MinInt64 + 1
	}
	return n + int64(d)
}
