package dynamodb

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
	for _, s := range []string{"", encodeCursor(1), encodeCursor(1 << 62), "garbage", "ZGRxMTotNQ", "ZGRxMTow",
		"ddq1:5", "====", "ZGRxMTox\x00", "ZGRxMTowMQ", encodeCursor(9223372036854775807)} {
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
		if encodeCursor(seq) != c {
			t.Fatalf("decodeCursor(%q) = %d, whose cursor is %q: two cursors name one place", c, seq, encodeCursor(seq))
		}
	})
}

// FuzzParseRecordID checks that exactly the IDs the store makes parse,
// each back to the partition and sequence number it was made from.
func FuzzParseRecordID(f *testing.F) {
	for _, s := range []string{formatRecordID("orders/to-hook", 1), formatRecordID("p", 1<<62), "dd-0000000000000001-", "dd-0000000000000001-cA=",
		"dd-000000000000000G-cA", "dd-0000000000000000-cA", "caller-chosen-id", "dd-0000000000000001-cB", formatDLQID(7), "dq-000000000000000a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if part, seq, ok := parseRecordID(id); ok {
			if back := formatRecordID(part, seq); back != id {
				t.Fatalf("parseRecordID(%q) = %q, %d, which formats as %q", id, part, seq, back)
			}
		}
		if seq, ok := parseDLQID(id); ok {
			if back := formatDLQID(seq); back != id {
				t.Fatalf("parseDLQID(%q) = %d, which formats as %q", id, seq, back)
			}
		}
	})
}
