package httpsse

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// FuzzRetryAfter feeds arbitrary Retry-After values to the webhook's
// parser: it never panics, never returns a negative wait, caps delay
// seconds at a day, and reads back the seconds and HTTP dates it is given.
func FuzzRetryAfter(f *testing.F) {
	now := time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC)
	for _, s := range []string{"120", " 7 ", "0", "-1", "86401", "99999999999999999999", "1.5",
		now.Add(time.Minute).Format(http.TimeFormat), "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "garbage"} {
		f.Add(s, int64(30))
	}
	f.Fuzz(func(t *testing.T, v string, secs int64) {
		d, ok := parseRetryAfter(v, now)
		if !ok && d != 0 {
			t.Fatalf("parseRetryAfter(%q) = %v but not ok", v, d)
		}
		if d < 0 {
			t.Fatalf("parseRetryAfter(%q) = %v", v, d)
		}
		if _, err := strconv.ParseInt(v, 10, 64); err == nil && d > 24*time.Hour {
			t.Fatalf("parseRetryAfter(%q) = %v, above a day", v, d)
		}
		secs %= 2 * 86400
		if secs < 0 {
			secs = -secs
		}
		want := time.Duration(min(secs, 86400)) * time.Second
		if got, ok := parseRetryAfter(strconv.FormatInt(secs, 10), now); !ok || got != want {
			t.Fatalf("%d seconds read back as %v, %v", secs, got, ok)
		}
		date := now.Add(time.Duration(secs) * time.Second).Format(http.TimeFormat)
		if got, ok := parseRetryAfter(date, now); !ok || got != time.Duration(secs)*time.Second {
			t.Fatalf("%q read back as %v, %v", date, got, ok)
		}
	})
}
