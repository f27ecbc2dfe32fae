package fault

// Class groups error codes by what the runtime should do about them.
type Class uint8

// The error classes.
const (
	// ClassTransient failures may succeed on a later attempt.
	ClassTransient Class = iota + 1
	// ClassPermanent failures will fail again however often they are retried.
	ClassPermanent
	// ClassExpired marks a message whose time to live has passed.
	ClassExpired
	// ClassRejected marks a message refused for its content (size, schema,
	// a filter). It is dropped without a DLQ entry unless policy says so.
	ClassRejected
)

// String returns the lower-case class name used in logs, metrics and DLQ
// entries.
func (c Class) String() string {
	switch c {
	case ClassTransient:
		return "transient"
	case ClassPermanent:
		return "permanent"
	case ClassExpired:
		return "expired"
	case ClassRejected:
		return "rejected"
	default:
		return "unknown"
	}
}
