package headerjson

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestHeadersRoundTrip(t *testing.T) {
	when := time.Date(2030, 1, 2, 3, 4, 5, 6, time.FixedZone("CET", 3600))
	h := map[string]any{
		"text":       "plain",
		"escapes":    "quote \" backslash \\ newline \n tab \t nul \x00 bell \a unicode é ✓",
		"not-utf8":   "\xff\xfe broken",
		"\xffkey":    "key that is not UTF-8",
		"\x00nul":    "key that starts with NUL",
		"empty":      "",
		"nil":        nil,
		"true":       true,
		"int":        int(-42),
		"int8":       int8(-8),
		"int16":      int16(-16),
		"int32":      int32(-32),
		"int64":      int64(math.MinInt64),
		"uint":       uint(42),
		"uint8":      uint8(255),
		"uint16":     uint16(65535),
		"uint32":     uint32(math.MaxUint32),
		"uint64":     uint64(math.MaxUint64),
		"float32":    float32(1.1),
		"float64":    0.1 + 0.2,
		"nan":        math.NaN(),
		"inf":        math.Inf(-1),
		"duration":   1500 * time.Millisecond,
		"time":       when,
		"bytes":      []byte{0, 1, 2, 255},
		"nil-bytes":  []byte(nil),
		"strings":    []string{"a", "\xff", ""},
		"string-map": map[string]string{"k": "v", "\xff": "w"},
		"list":       []any{"x", 1, true, []byte("y"), map[string]any{"deep": int64(7)}},
		"map":        map[string]any{"n": uint16(3), "s": "t", "inner": []any{nil}},
	}
	raw := Encode(h)
	if !json.Valid(raw) {
		t.Fatalf("stored headers are not valid JSON: %s", raw)
	}
	got, err := Decode(raw)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	opts := cmp.Options{
		cmp.Comparer(func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }),
		cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	}
	if diff := cmp.Diff(h, got, opts); diff != "" {
		t.Errorf("headers after a round trip (-want +got):\n%s", diff)
	}
	for name, want := range h {
		if w, g := fmt.Sprintf("%T", want), fmt.Sprintf("%T", got[name]); w != g {
			t.Errorf("header %q: type %s, want %s", name, g, w)
		}
	}
}

func TestHeadersPlainStringsStayReadable(t *testing.T) {
	raw := Encode(map[string]any{"traceparent": "00-ab-cd-01"})
	if want := `{"traceparent":"00-ab-cd-01"}`; string(raw) != want {
		t.Errorf("stored %s, want %s", raw, want)
	}
}

func TestHeadersOtherTypesAsJSON(t *testing.T) {
	type custom struct{ A int }
	got, err := Decode(Encode(map[string]any{"c": custom{A: 1}, "ch": make(chan int)}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"A": float64(1)}, got["c"]); diff != "" {
		t.Errorf("struct header (-want +got):\n%s", diff)
	}
	if s, ok := got["ch"].(string); !ok || s == "" {
		t.Errorf("unencodable header came back as %#v, want its %%v text", got["ch"])
	}
}

func TestHeadersEmpty(t *testing.T) {
	if raw := Encode(nil); raw != nil {
		t.Errorf("nil headers stored as %q, want nothing", raw)
	}
	got, err := Decode(nil)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("decoding nothing = %v, %v; want an empty map", got, err)
	}
}

func FuzzHeadersStrings(f *testing.F) {
	f.Add("k", "v")
	f.Add("\xff", "\x00\"\\")
	f.Add("\x00x", "é\n")
	f.Fuzz(func(t *testing.T, k, v string) {
		h := map[string]any{k: v, "nested": map[string]any{k: []any{v}}, "strs": map[string]string{k: v}}
		got, err := Decode(Encode(h))
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if diff := cmp.Diff(h, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	})
}
