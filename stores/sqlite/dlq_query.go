package sqlite

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// DefaultListLimit is the page size of List when the limit is 0 or less.
const DefaultListLimit = 100

// cursorPrefix versions the cursor format.
const cursorPrefix = "dlq1:"

// whereFilter returns the SQL condition (starting with " WHERE" when not
// empty) and arguments for f, plus seq > after when after is positive.
func whereFilter(f ports.DLQFilter, after int64) (string, []any) {
	var conds []string
	var args []any
	if after > 0 {
		conds = append(conds, "seq > ?")
		args = append(args, after)
	}
	if f.RouteID != "" {
		conds = append(conds, "route_id = ?")
		args = append(args, f.RouteID)
	}
	if f.Category != "" {
		conds = append(conds, "category = ?")
		args = append(args, string(f.Category))
	}
	if !f.From.IsZero() {
		conds = append(conds, "last_failure_at >= ?")
		args = append(args, encodeTime(f.From))
	}
	if !f.To.IsZero() {
		conds = append(conds, "last_failure_at < ?")
		args = append(args, encodeTime(f.To))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// encodeCursor makes the opaque cursor that resumes after seq. Sequence
// numbers are never reused (AUTOINCREMENT), so the cursor stays valid
// whatever is written or deleted meanwhile.
func encodeCursor(seq int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(seq, 10)))
}

// decodeCursor returns the sequence number to resume after; the empty
// cursor starts at the beginning.
func decodeCursor(c string) (int64, error) {
	if c == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err == nil {
		if rest, ok := strings.CutPrefix(string(raw), cursorPrefix); ok {
			if seq, err := strconv.ParseInt(rest, 10, 64); err == nil && seq > 0 {
				return seq, nil
			}
		}
	}
	return 0, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("invalid DLQ cursor %q", clip(c)))
}

// clip shortens a client's input for an error message, so that a huge or
// hostile value is not echoed whole.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
