package circuitbreaker

import (
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// TestKeyExtractors covers the specification's key extraction table and
// values of unexpected types.
func TestKeyExtractors(t *testing.T) {
	long := strings.Repeat("k", MaxHeaderKeyLen+10)
	env := func(subject string, v any) *messaging.Envelope {
		e := messaging.NewEnvelope(subject, nil)
		if v != nil {
			e.Headers["tenant-id"] = v
		}
		return e
	}
	tests := []struct {
		name string
		fn   KeyExtractor
		env  *messaging.Envelope
		want string
	}{
		{"global", GlobalKey, env("a", "t1"), "global"},
		{"global nil envelope", GlobalKey, nil, "global"},
		{"subject", SubjectKey, env("orders.eu", nil), "orders.eu"},
		{"subject nil envelope", SubjectKey, nil, ""},
		{"header string", HeaderKey("tenant-id"), env("a", "t1"), "t1"},
		{"header bytes", HeaderKey("tenant-id"), env("a", []byte("t2")), "t2"},
		{"header int", HeaderKey("tenant-id"), env("a", 42), "42"},
		{"header int64", HeaderKey("tenant-id"), env("a", int64(-7)), "-7"},
		{"header int32", HeaderKey("tenant-id"), env("a", int32(9)), "9"},
		{"header uint", HeaderKey("tenant-id"), env("a", uint(3)), "3"},
		{"header uint64", HeaderKey("tenant-id"), env("a", uint64(1)<<63), "9223372036854775808"},
		{"header uint32", HeaderKey("tenant-id"), env("a", uint32(5)), "5"},
		{"header float64", HeaderKey("tenant-id"), env("a", 12.0), "12"},
		{"header bool", HeaderKey("tenant-id"), env("a", true), "true"},
		{"header other type", HeaderKey("tenant-id"), env("a", map[string]any{"x": 1}), ""},
		{"header missing", HeaderKey("tenant-id"), env("a", nil), ""},
		{"header nil envelope", HeaderKey("tenant-id"), nil, ""},
		{"header too long", HeaderKey("tenant-id"), env("a", long), long[:MaxHeaderKeyLen]},
		{"header bytes too long", HeaderKey("tenant-id"), env("a", []byte(long)), long[:MaxHeaderKeyLen]},
	}
	for _, tt := range tests {
		if got := tt.fn(tt.env); got != tt.want {
			t.Errorf("%s: key = %q, want %q", tt.name, got, tt.want)
		}
	}
}
