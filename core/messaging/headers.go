package messaging

import (
	"slices"
	"strings"
)

// HeaderPrefix starts every header name the bridge reserves for itself.
// Names are compared case-insensitively so that "X-Bridge.Tenant-Id" cannot
// slip past ingress stripping.
const HeaderPrefix = "x-bridge."

// Reserved and well-known header names.
const (
	HeaderCorrelationID  = "x-bridge.correlation-id"
	HeaderCausationID    = "x-bridge.causation-id"
	HeaderIdempotencyKey = "x-bridge.idempotency-key"
	HeaderContentType    = "x-bridge.content-type"
	HeaderSourceID       = "x-bridge.source-id"
	HeaderRouteID        = "x-bridge.route-id"
	HeaderOrderingKey    = "x-bridge.ordering-key"
	HeaderDedupID        = "x-bridge.dedup-id"
	HeaderTenantID       = "x-bridge.tenant-id"
	HeaderRouteOverride  = "x-bridge.route-override"
	HeaderForwardedFrom  = "x-bridge.forwarded-from"
	HeaderForwardedHop   = "x-bridge.forwarded-hop"
	HeaderTraceParent    = "traceparent"
	HeaderTraceState     = "tracestate"
)

// SubjectCarrier is the application-visible header or property name that
// transports without a native subject field use to carry Envelope.Subject on
// the wire. It deliberately sits outside the reserved prefix.
const SubjectCarrier = "gobridge.subject"

// WellKnownHeaders returns the names of the headers the bridge gives a
// meaning to, in a fresh slice the caller may keep.
func WellKnownHeaders() []string {
	return []string{
		HeaderCorrelationID, HeaderCausationID, HeaderIdempotencyKey,
		HeaderContentType, HeaderSourceID, HeaderRouteID, HeaderOrderingKey,
		HeaderDedupID, HeaderTenantID, HeaderRouteOverride,
		HeaderForwardedFrom, HeaderForwardedHop,
		HeaderTraceParent, HeaderTraceState,
	}
}

// IsReserved reports whether name lies in the reserved x-bridge. namespace.
func IsReserved(name string) bool {
	return len(name) >= len(HeaderPrefix) && strings.EqualFold(name[:len(HeaderPrefix)], HeaderPrefix)
}

// IsPropagated reports whether name is a reserved header that one bridge
// may pass to another when the receiving route trusts its upstream.
func IsPropagated(name string) bool {
	switch strings.ToLower(name) {
	case HeaderCorrelationID, HeaderCausationID, HeaderIdempotencyKey,
		HeaderDedupID, HeaderOrderingKey, HeaderTenantID,
		HeaderForwardedFrom, HeaderForwardedHop:
		return true
	}
	return false
}

// IsInternalOnly reports whether name is a reserved header that only the
// local bridge may set. Such headers are removed at ingress even from a
// trusted upstream, so no inbound message can steer routing.
func IsInternalOnly(name string) bool {
	switch strings.ToLower(name) {
	case HeaderRouteID, HeaderRouteOverride, HeaderSourceID, HeaderContentType:
		return true
	}
	return false
}

// StripIngress removes reserved headers from an inbound header map and
// returns how many it removed.
//
// With trust false every x-bridge.* header goes. With trust true the
// propagated headers (correlation, causation, idempotency, dedup, ordering,
// tenant, forwarded-from/-hop) survive, renamed to their lower-case form
// (an existing lower-case spelling wins over a mixed-case duplicate; among
// mixed-case duplicates alone, the one that sorts first wins), while
// internal-only and unknown reserved names still go. The W3C trace headers
// are outside the reserved namespace and are never touched.
func StripIngress(h map[string]any, trust bool) int {
	removed := 0
	var renames []string
	for k := range h {
		if !IsReserved(k) {
			continue
		}
		if trust && IsPropagated(k) {
			if strings.ToLower(k) != k {
				renames = append(renames, k)
			}
			continue
		}
		delete(h, k)
		removed++
	}
	// Rename in sorted order so that, when several mixed-case spellings of
	// one header arrive without the lower-case one, the same spelling wins
	// on every run regardless of map iteration order.
	if len(renames) > 1 {
		slices.Sort(renames)
	}
	for _, k := range renames {
		v := h[k]
		delete(h, k)
		lk := strings.ToLower(k)
		if _, dup := h[lk]; dup {
			// The canonical spelling (or an earlier duplicate) wins.
			removed++
			continue
		}
		h[lk] = v
	}
	return removed
}
