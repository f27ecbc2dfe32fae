package messaging

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fuzzHeaders builds a header map from newline-separated names and values.
// Every third value is stored as a []byte so both common value types are
// exercised. For each propagated name an upper-case twin with a different
// value is added as well, to provoke the duplicate-spelling rules.
func fuzzHeaders(names string, values []byte) map[string]any {
	vals := strings.Split(string(values), "\n")
	h := make(map[string]any)
	for i, n := range strings.Split(names, "\n") {
		v := ""
		if i < len(vals) {
			v = vals[i]
		}
		if i%3 == 2 {
			h[n] = []byte(v)
		} else {
			h[n] = v
		}
		if IsPropagated(n) {
			h[strings.ToUpper(n)] = "twin:" + v
		}
	}
	return h
}

func FuzzStripIngress(f *testing.F) {
	f.Add("x-bridge.tenant-id\nX-Bridge.Tenant-Id\ntraceparent", []byte("a\nb\nc"), true)
	f.Add("X-BRIDGE.ROUTE-ID\nx-bridge.source-id\ngobridge.subject", []byte("r\ns\nsubj"), true)
	f.Add("x-bridge.correlation-id\ncontent-type", []byte("c\njson"), false)
	f.Add("", []byte(""), false)

	f.Fuzz(func(t *testing.T, names string, values []byte, trust bool) {
		orig := fuzzHeaders(names, values)
		h := CloneHeaders(orig)
		removed := StripIngress(h, trust)

		if got := len(orig) - len(h); got != removed {
			t.Fatalf("removed = %d but map shrank by %d", removed, got)
		}

		canonical := map[string]bool{} // lower-case names the survivors may use
		for k := range orig {
			if trust && IsReserved(k) && IsPropagated(k) {
				canonical[strings.ToLower(k)] = true
			}
		}

		for k, v := range h {
			if !IsReserved(k) {
				ov, ok := orig[k]
				if !ok {
					t.Fatalf("non-reserved key %q appeared from nowhere", k)
				}
				if diff := cmp.Diff(ov, v); diff != "" {
					t.Fatalf("non-reserved key %q changed (-want +got):\n%s", k, diff)
				}
				continue
			}
			if !trust || !IsPropagated(k) || k != strings.ToLower(k) {
				t.Fatalf("reserved key %q survived (trust=%v)", k, trust)
			}
			if ov, ok := orig[k]; ok {
				if diff := cmp.Diff(ov, v); diff != "" {
					t.Fatalf("existing lower-case %q lost to a duplicate (-want +got):\n%s", k, diff)
				}
			}
		}

		for k, v := range orig {
			if !IsReserved(k) {
				if _, ok := h[k]; !ok {
					t.Fatalf("non-reserved key %q was removed", k)
				}
				continue
			}
			if canonical[strings.ToLower(k)] {
				if _, ok := h[strings.ToLower(k)]; !ok {
					t.Fatalf("propagated %q (value %v) vanished under trust", k, v)
				}
			}
		}

		// The outcome must not depend on map iteration order.
		again := CloneHeaders(orig)
		if StripIngress(again, trust) != removed {
			t.Fatal("removed count differs between runs")
		}
		if diff := cmp.Diff(h, again); diff != "" {
			t.Fatalf("second run differs (-first +second):\n%s", diff)
		}
	})
}
