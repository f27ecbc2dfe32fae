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
	for _, s := range []string{formatRecordID("orders/to-hook", formatSK(1, 7)), formatRecordID("p", formatSK(1<<62, 1<<63)),
		"dd-" + formatSK(5, 5) + "-", "dd-" + formatSK(5, 5) + "-cA=", "dd-" + formatSK(5, 5)[:34] + "G-cA",
		"caller-chosen-id", formatDLQID(7), "dq-000000000000000a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if part, sk, ok := parseRecordID(id); ok {
			if back := formatRecordID(part, sk); back != id {
				t.Fatalf("parseRecordID(%q) = %q, %q, which formats as %q", id, part, sk, back)
			}
		}
		if seq, ok := parseDLQID(id); ok {
			if back := formatDLQID(seq); back != id {
				t.Fatalf("parseDLQID(%q) = %d, which formats as %q", id, seq, back)
			}
		}
	})
}
