// Package messaging holds the Envelope, the value that travels through every
// route, and the reserved header vocabulary the bridge uses to annotate it.
//
// An Envelope is a plain value: it has no behaviour tied to any transport.
// Its payload is treated as immutable once installed; Payload returns a copy
// and PayloadView lends the backing array to readers that promise not to
// modify it.
package messaging
