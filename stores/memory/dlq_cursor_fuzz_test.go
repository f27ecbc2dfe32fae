package memory

import (
	"errors"
	"strconv"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// FuzzParseCursor feeds DLQ listing cursors as an admin API client may
// send them: each is a sequence number that prints back to itself, or an
// INVALID_CONFIG error with a short message.
func FuzzParseCursor(f *testing.F) {
	for _, s := range []string{"", "0", "1", "18446744073709551615", "18446744073709551616", "-1", "+1", "01", "x", "1\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, c string) {
		seq, err := parseCursor(c)
		if err != nil {
			if !errors.Is(err, fault.ErrInvalidConfig) {
				t.Fatalf("parseCursor(%q) error %v is not INVALID_CONFIG", c, err)
			}
			if n := len(err.Error()); n > 200 {
				t.Fatalf("error message of %d bytes echoes the input", n)
			}
			return
		}
		if c == "" {
			if seq != 0 {
				t.Fatalf("empty cursor resumes after %d", seq)
			}
			return
		}
		if back, err := parseCursor(strconv.FormatUint(seq, 10)); err != nil || back != seq {
			t.Fatalf("round trip of %d: %d, %v", seq, back, err)
		}
	})
}
