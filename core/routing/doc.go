// Package routing decides where a message goes.
//
// It has two layers:
//
//   - A condition engine: a list of Condition values is compiled once, with
//     Compile, into a Matcher that tests an envelope's subject, its headers
//     and fields of its JSON payload. Evaluation works on an Input, a small
//     per-message value that reads the payload lazily and scans it at most
//     once, however many conditions look into it.
//   - Destination resolvers built from a ResolverSpec by NewResolver. They
//     implement ports.DestinationResolver and pick one binding (static,
//     rules, header_map) or all of them (all).
//
// # Fields
//
// A condition's Field is one of:
//
//	subject          the envelope subject
//	header.<name>    the header <name>
//	$.<path>         a value inside the JSON payload, for example
//	                 $.order.lines[0].sku or $.order.lines.0.sku
//	<name>           any other text is a header name, like header.<name>
//
// Path segments are separated by dots. A segment made only of digits (no
// leading zero) and a bracketed index "[n]" are interchangeable: both select
// element n of an array or the member named "n" of an object. Object keys
// containing dots or brackets cannot be addressed.
//
// # Values
//
// Subject and header strings are untyped text: when the configured value is
// a number they are read as a JSON-style number, so header "42" equals 42.
// JSON payload strings keep their type: "42" in a payload does not equal 42.
// Numbers are compared by exact decimal value, so very large integers are
// never rounded; configured and header floating-point numbers take part
// with their shortest round-trip decimal form.
//
// # Route override
//
// Every resolver built by NewResolver first looks at the
// messaging.HeaderRouteOverride header. When it holds the ID of a binding
// declared on the route, that binding alone is chosen; any other value is
// ignored (and logged when non-empty), and the message is resolved
// normally. The header is internal-only, so only a processor of the local
// bridge can set it.
//
// # Missing fields
//
// A field is missing when the header is absent, when the path does not
// exist in the payload, or when the payload is not one well-formed JSON
// document (including truncated or empty payloads). On a missing field every
// operator is false, except ne, which is true, and exists with value false,
// which is true.
package routing
