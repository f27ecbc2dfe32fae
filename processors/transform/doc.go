// Package transform is a gobridge processor that reshapes JSON payloads:
// each mapping copies the value found at a JSONPath source to a target
// field written in dot notation, optionally converting its type on the
// way.
//
// With DropUnmapped false (the default) the output is the input object
// with the mapped targets written on top of it; with DropUnmapped true the
// output holds only the mapped targets. Sources are always read from the
// message as it arrived, never from the output of an earlier mapping.
//
// Values the processor does not convert are copied byte for byte, so
// numbers keep every digit (an integer above 2^53 is not rounded) and the
// fields the mappings do not touch keep their order and formatting.
//
// Every failure is a rejected-class fault.BridgeError that names the
// processor and, where one is to blame, the mapping:
//
//	INVALID_PAYLOAD    the payload is not one well-formed JSON document
//	PAYLOAD_TOO_LARGE  the payload exceeds MaxPayloadBytes
//	SCHEMA_VIOLATION   the payload is JSON of the wrong shape: a required
//	                   source is missing, a value cannot be converted, a
//	                   target would cross a value that is not an object,
//	                   or the root is not an object when unmapped fields
//	                   are kept
//
// Conversion failures and target conflicts of mappings that are neither
// Required nor run with FailOnError only skip that mapping.
package transform
