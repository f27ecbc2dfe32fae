package sqlite

import (
	"errors"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// FuzzDecodeCursor feeds DLQ listing cursors as an admin API client may
// send them. A cursor either names a positive sequence number, whose
// canonical encoding decodes to the same number, or is refused with an
// INVALID_CONFIG error whose message stays short whatever the input.
func FuzzDecodeCursor(f *testing.F) {
	for _, s := range []string{"", encodeCursor(1), encodeCursor(1 << 62), "garbage", "ZGxxMTotNQ", "ZGxxMTow", "dlq1:5", "====", "ZGxxMTox\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, c string) {
		seq, err := decodeCursor(c)
		if err != nil {
			if !errors.Is(err, fault.ErrInvalidConfig) {
				t.Fatalf("decodeCursor(%q) error %v is not INVALID_CONFIG", c, err)
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
		if seq <= 0 {
			t.Fatalf("decodeCursor(%q) = %d without an error", c, seq)
		}
		if back, err := decodeCursor(encodeCursor(seq)); err != nil || back != seq {
			t.Fatalf("round trip of %d: %d, %v", seq, back, err)
		}
	})
}
