package ports

import "time"

// Leased is implemented by deliveries that their source hides from other
// consumers only until a deadline: an SQS visibility timeout, a Service
// Bus peek lock. While such a delivery is being handled, the runtime calls
// Delivery.Extend before the deadline passes (when a third of the lease
// is left, asking for a whole lease more), for as long as the delivery is
// in hand. When an extension fails, the runtime stops working on the
// delivery and leaves it unsettled: the source will hand it out again, and
// finishing it now could only duplicate it.
//
// Extend is called from a goroutine of the runtime's, concurrently with the
// delivery's other methods but never after it was settled; a source that
// can extend many messages in one request should coalesce the calls.
type Leased interface {
	// LeaseUntil returns when the source hands the message to another
	// consumer unless Extend moves the deadline. The runtime reads it once,
	// when it takes the delivery, and derives the lease's length from it.
	LeaseUntil() time.Time
}
