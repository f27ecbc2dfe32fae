package sqs

import (
	"fmt"
	"math"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// DelayLimit makes Sender a ports.Delayer: a standard queue delays a
// message by up to 15 minutes (DelaySeconds 900); a FIFO queue only as a
// whole, so a binding that asks for a per-message delay there is refused.
// An empty address is the sender's default queue.
func (s *Sender) DelayLimit(address string) (time.Duration, error) {
	if address == "" {
		address = s.cfg.Queue
	}
	if isFIFO(address) {
		return 0, errFIFODelay
	}
	return maxDelay, nil
}

// errFIFODelay says why a FIFO queue takes no per-message delay.
var errFIFODelay = fault.ErrNotSupported.WithMessage("sqs: FIFO queues cannot delay a single message; set DelaySeconds on the queue instead of deliver_after")

// maxDelay is SQS's DelaySeconds ceiling.
const maxDelay = 15 * time.Minute

// delaySeconds turns a NotBefore into DelaySeconds, rounded up so that the
// message never becomes visible early. A zero or past NotBefore is no
// delay. FIFO queues delay only as a whole (the queue's own
// DelaySeconds), so a per-message delay there is refused rather than
// ignored.
func delaySeconds(notBefore, now time.Time, fifo bool) (int32, error) {
	if notBefore.IsZero() || !notBefore.After(now) {
		return 0, nil
	}
	d := notBefore.Sub(now)
	if fifo {
		return 0, errFIFODelay
	}
	if d > maxDelay {
		return 0, fault.ErrNotSupported.WithMessage(fmt.Sprintf("sqs: a delay of %s exceeds the 15m SQS allows", d.Round(time.Second)))
	}
	return int32(math.Ceil(d.Seconds())), nil
}
