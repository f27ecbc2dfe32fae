// Package filter is a gobridge processor that lets a message through,
// discards it, or steers it to one binding of its route, depending on
// conditions about the message.
//
// The conditions are those of the core condition engine
// (github.com/gobridge-oss/gobridge/core/routing): a field (subject,
// header.<name>, a bare header name, or a $.json.path into the payload), an
// operator and a value. A filter compiles its conditions once, in New; all
// of them must hold for the filter to match, and Invert turns the combined
// result around.
//
// What a match means depends on the action:
//
//	pass   only matching messages continue; the others are filtered
//	drop   matching messages are filtered; the others continue
//	route  matching messages get the route-override header set to RouteTo
//	       and continue; the others continue untouched
//
// A filtered message makes Process return fault.ErrMessageFiltered, which
// the route acknowledges and counts instead of treating it as a failure.
//
// # Payload size
//
// A filter reads the payload only when one of its conditions uses a $.
// field. Such a filter refuses payloads larger than MaxPayloadBytes with a
// rejected-class fault.ErrPayloadTooLarge. A filter that tests only the
// subject and headers never looks at the payload and has no size limit.
// A payload that is not one well-formed JSON document is not an error: its
// $. fields are simply missing.
package filter
