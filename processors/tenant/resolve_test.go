package tenant

import (
	"encoding/json"
	"math"
	"testing"
)

// TestTenantID covers the numeric coercion rules and the 2^53 ceiling.
func TestTenantID(t *testing.T) {
	const big = 1 << 53
	tests := []struct {
		name      string
		in        any
		want      string
		malformed bool
	}{
		{"absent", nil, "", false},
		{"empty string", "", "", false},
		{"string", "acme", "acme", false},
		{"string kept verbatim", " Acme ", " Acme ", false},
		{"bytes", []byte("acme"), "acme", false},
		{"empty bytes", []byte{}, "", false},
		{"int", 42, "42", false},
		{"negative int", -42, "-42", false},
		{"int8", int8(-8), "-8", false},
		{"int16", int16(16), "16", false},
		{"int32", int32(32), "32", false},
		{"int64 at 2^53", int64(big), "9007199254740992", false},
		{"int64 at -2^53", int64(-big), "-9007199254740992", false},
		{"int64 above 2^53", int64(big + 1), "", true},
		{"int64 below -2^53", int64(-big - 1), "", true},
		{"int64 min", int64(math.MinInt64), "", true},
		{"uint", uint(7), "7", false},
		{"uint8", uint8(8), "8", false},
		{"uint16", uint16(16), "16", false},
		{"uint32", uint32(4000000000), "4000000000", false},
		{"uint64 at 2^53", uint64(big), "9007199254740992", false},
		{"uint64 above 2^53", uint64(big + 1), "", true},
		{"uint64 max", uint64(math.MaxUint64), "", true},
		{"float64 integral (JSON round trip)", 1234.0, "1234", false},
		{"float64 negative zero", math.Copysign(0, -1), "0", false},
		{"float64 at 2^53", float64(big), "9007199254740992", false},
		{"float64 above 2^53", float64(big) * 2, "", true},
		{"float64 fractional", 12.5, "", true},
		{"float64 NaN", math.NaN(), "", true},
		{"float64 +Inf", math.Inf(1), "", true},
		{"float64 -Inf", math.Inf(-1), "", true},
		{"float32 integral", float32(99), "99", false},
		{"float32 fractional", float32(0.5), "", true},
		{"json.Number integer", json.Number("77"), "77", false},
		{"json.Number exponent integral", json.Number("1e3"), "1000", false},
		{"json.Number fractional", json.Number("1.5"), "", true},
		{"json.Number above 2^53", json.Number("9007199254740993"), "", true},
		{"json.Number huge", json.Number("1e400"), "", true},
		{"json.Number garbage", json.Number("abc"), "", true},
		{"bool", true, "", true},
		{"map", map[string]any{"id": "x"}, "", true},
		{"slice", []any{"x"}, "", true},
		{"struct", struct{}{}, "", true},
	}
	for _, tt := range tests {
		id, problem := tenantID(tt.in)
		if id != tt.want || (problem != "") != tt.malformed {
			t.Errorf("%s: tenantID(%v) = %q, %q; want %q, malformed=%v", tt.name, tt.in, id, problem, tt.want, tt.malformed)
		}
	}
}

// FuzzTenantID feeds arbitrary JSON values through the resolver: it must
// never panic, and a value is either an ID, absent, or malformed.
func FuzzTenantID(f *testing.F) {
	for _, s := range []string{`"acme"`, `42`, `1.5`, `9007199254740993`, `null`, `{"a":1}`, `[1]`, `true`, `-0`, `1e308`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, useNumber := range []bool{false, true} {
			var v any
			var err error
			if useNumber {
				var n json.Number
				if err = json.Unmarshal(data, &n); err != nil {
					continue
				}
				v = n
			} else if err = json.Unmarshal(data, &v); err != nil {
				continue
			}
			id, problem := tenantID(v)
			if id != "" && problem != "" {
				t.Fatalf("tenantID(%#v) = %q with problem %q", v, id, problem)
			}
		}
	})
}
