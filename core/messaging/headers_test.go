package messaging

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var propagatedNames = []string{
	HeaderCorrelationID, HeaderCausationID, HeaderIdempotencyKey, HeaderDedupID,
	HeaderOrderingKey, HeaderTenantID, HeaderForwardedFrom, HeaderForwardedHop,
}

var internalOnlyNames = []string{HeaderRouteID, HeaderRouteOverride, HeaderSourceID, HeaderContentType}

func TestHeaderClassification(t *testing.T) {
	type class struct{ Reserved, Propagated, InternalOnly bool }
	tests := []struct {
		name string
		want class
	}{
		{HeaderCorrelationID, class{true, true, false}},
		{HeaderCausationID, class{true, true, false}},
		{HeaderIdempotencyKey, class{true, true, false}},
		{HeaderDedupID, class{true, true, false}},
		{HeaderOrderingKey, class{true, true, false}},
		{HeaderTenantID, class{true, true, false}},
		{HeaderForwardedFrom, class{true, true, false}},
		{HeaderForwardedHop, class{true, true, false}},
		{"X-Bridge.Tenant-Id", class{true, true, false}},
		{"X-BRIDGE.CORRELATION-ID", class{true, true, false}},
		{HeaderRouteID, class{true, false, true}},
		{HeaderRouteOverride, class{true, false, true}},
		{HeaderSourceID, class{true, false, true}},
		{HeaderContentType, class{true, false, true}},
		{"X-Bridge.Route-Override", class{true, false, true}},
		{"x-bridge.unknown", class{true, false, false}},
		{"x-bridge.", class{true, false, false}},
		{"X-BRIDGE.", class{true, false, false}},
		{"x-bridge", class{false, false, false}},
		{"x-bridgetenant-id", class{false, false, false}},
		{"x_bridge.tenant-id", class{false, false, false}},
		{" x-bridge.tenant-id", class{false, false, false}},
		{"x-bridge.tenant-id ", class{true, false, false}},
		{"bridge.tenant-id", class{false, false, false}},
		{"tenant-id", class{false, false, false}},
		{HeaderTraceParent, class{false, false, false}},
		{HeaderTraceState, class{false, false, false}},
		{SubjectCarrier, class{false, false, false}},
		{"", class{false, false, false}},
		{"x", class{false, false, false}},
		{"\xff\xfe", class{false, false, false}},
	}
	for _, tt := range tests {
		got := class{IsReserved(tt.name), IsPropagated(tt.name), IsInternalOnly(tt.name)}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("classification of %q (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestWellKnownHeaders(t *testing.T) {
	want := []string{
		"x-bridge.correlation-id", "x-bridge.causation-id", "x-bridge.idempotency-key",
		"x-bridge.content-type", "x-bridge.source-id", "x-bridge.route-id",
		"x-bridge.ordering-key", "x-bridge.dedup-id", "x-bridge.tenant-id",
		"x-bridge.route-override", "x-bridge.forwarded-from", "x-bridge.forwarded-hop",
		"traceparent", "tracestate",
	}
	first := WellKnownHeaders()
	if diff := cmp.Diff(want, first); diff != "" {
		t.Fatalf("WellKnownHeaders (-want +got):\n%s", diff)
	}
	for i := range first {
		first[i] = "mutated"
	}
	if diff := cmp.Diff(want, WellKnownHeaders()); diff != "" {
		t.Errorf("mutating a returned slice changed the next call (-want +got):\n%s", diff)
	}
	for _, h := range want {
		if h != strings.ToLower(h) {
			t.Errorf("well-known header %q is not lower case", h)
		}
		reserved := strings.HasPrefix(h, HeaderPrefix)
		if IsReserved(h) != reserved {
			t.Errorf("IsReserved(%q) = %v, want %v", h, !reserved, reserved)
		}
		if reserved && IsPropagated(h) == IsInternalOnly(h) {
			t.Errorf("%q must be exactly one of propagated or internal-only", h)
		}
	}
}

// mixedCase upper-cases the first letter of every dot/dash separated word.
func mixedCase(s string) string {
	b := []byte(s)
	up := true
	for i, c := range b {
		if up && c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
		up = c == '.' || c == '-'
	}
	return string(b)
}

func TestStripIngress(t *testing.T) {
	others := map[string]any{
		HeaderTraceParent: "00-abc-def-01",
		HeaderTraceState:  "vendor=1",
		SubjectCarrier:    "orders.created",
		"content-type":    "application/json",
		"X-Custom":        []byte("raw"),
		"x-bridgeish":     1,
	}
	withOthers := func(m map[string]any) map[string]any {
		out := CloneHeaders(others)
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	allReservedLower := map[string]any{}
	for _, n := range append(append([]string{}, propagatedNames...), internalOnlyNames...) {
		allReservedLower[n] = "v:" + n
	}
	allReservedLower["x-bridge.unknown"] = "u"
	propagatedOnly := map[string]any{}
	for _, n := range propagatedNames {
		propagatedOnly[n] = "v:" + n
	}
	mixedPropagated, mixedPropagatedWant := map[string]any{}, map[string]any{}
	for _, n := range propagatedNames {
		mixedPropagated[mixedCase(n)] = "m:" + n
		mixedPropagatedWant[n] = "m:" + n
	}

	tests := []struct {
		name        string
		in          map[string]any
		trust       bool
		want        map[string]any
		wantRemoved int
	}{
		{name: "nil map untrusted", in: nil, want: nil},
		{name: "nil map trusted", in: nil, trust: true, want: nil},
		{name: "only others untrusted", in: withOthers(nil), want: withOthers(nil)},
		{name: "only others trusted", in: withOthers(nil), trust: true, want: withOthers(nil)},
		{
			name: "untrusted strips every reserved", in: withOthers(allReservedLower),
			want: withOthers(nil), wantRemoved: len(allReservedLower),
		},
		{
			name: "untrusted strips any letter case",
			in: withOthers(map[string]any{
				"X-Bridge.Tenant-Id": "t", "X-BRIDGE.ROUTE-ID": "r", "x-BrIdGe.anything": "a", "X-BRIDGE.": "e",
			}),
			want: withOthers(nil), wantRemoved: 4,
		},
		{
			name: "trusted keeps propagated, strips internal-only and unknown", in: withOthers(allReservedLower),
			trust: true, want: withOthers(propagatedOnly), wantRemoved: len(internalOnlyNames) + 1,
		},
		{
			name: "trusted renames mixed-case propagated", in: withOthers(mixedPropagated), trust: true,
			want: withOthers(mixedPropagatedWant), wantRemoved: 0,
		},
		{
			name: "trusted strips mixed-case internal-only",
			in: withOthers(map[string]any{
				"X-Bridge.Route-Id": "r", "X-BRIDGE.ROUTE-OVERRIDE": "o", "x-bridge.Source-ID": "s", "X-Bridge.Content-Type": "c",
			}),
			trust: true, want: withOthers(nil), wantRemoved: 4,
		},
		{
			name:  "trusted lower-case wins over mixed-case duplicate",
			in:    map[string]any{HeaderTenantID: "lower", "X-Bridge.Tenant-Id": "mixed", "X-BRIDGE.TENANT-ID": "upper"},
			trust: true, want: map[string]any{HeaderTenantID: "lower"}, wantRemoved: 2,
		},
		{
			name:  "trusted mixed-case duplicates without lower-case pick one deterministically",
			in:    map[string]any{"X-Bridge.Tenant-Id": "mixed", "X-BRIDGE.TENANT-ID": "upper", "x-Bridge.tenant-id": "lowerish"},
			trust: true, want: map[string]any{HeaderTenantID: "upper"}, wantRemoved: 2,
		},
		{
			name:  "trusted propagated suffix variants are unknown",
			in:    map[string]any{"x-bridge.tenant-id-extra": "a", "x-bridge.tenant-id ": "b", "x-bridge.tenant": "c"},
			trust: true, want: map[string]any{}, wantRemoved: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Repeat so that a result that depends on map iteration
			// order shows up as a mismatch.
			for range 50 {
				var h map[string]any
				if tt.in != nil {
					h = CloneHeaders(tt.in)
				}
				removed := StripIngress(h, tt.trust)
				if diff := cmp.Diff(tt.want, h); diff != "" {
					t.Fatalf("headers (-want +got):\n%s", diff)
				}
				if removed != tt.wantRemoved {
					t.Fatalf("removed = %d, want %d", removed, tt.wantRemoved)
				}
			}
		})
	}
}

func TestStripIngressKeepsValueIdentity(t *testing.T) {
	payload := []byte("shared")
	h := map[string]any{"X-Bridge.Correlation-Id": payload, "keep": payload}
	StripIngress(h, true)
	got, ok := h[HeaderCorrelationID].([]byte)
	if !ok || &got[0] != &payload[0] {
		t.Errorf("renamed header value = %#v, want the original slice", h[HeaderCorrelationID])
	}
	if kept := h["keep"].([]byte); &kept[0] != &payload[0] {
		t.Error("non-reserved value was replaced")
	}
}
