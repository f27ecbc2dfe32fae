package runtime

import (
	"errors"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// verdictKind is what happens to a message after one attempt.
type verdictKind uint8

const (
	// settleAck: the targets accepted it; acknowledge (or complete the
	// outbox record).
	settleAck verdictKind = iota + 1
	// settleRetry: hand it back to its source (or replay the record)
	// after verdict.delay.
	settleRetry
	// settleDeadLetter: write it to the DLQ under verdict.category, then
	// acknowledge.
	settleDeadLetter
	// settleDrop: acknowledge without delivery, counted under
	// verdict.reason.
	settleDrop
	// settleUnsettled: leave it with its source, which redelivers it.
	settleUnsettled
)

func (k verdictKind) String() string {
	switch k {
	case settleAck:
		return "ack"
	case settleRetry:
		return "retry"
	case settleDeadLetter:
		return "dead-letter"
	case settleDrop:
		return "drop"
	case settleUnsettled:
		return "unsettled"
	}
	return "unknown"
}

// attemptFacts is everything that decides the outcome of one attempt to
// deliver a message, in either delivery mode. The outbox drainer is a
// source that can always retry (it replays the record).
type attemptFacts struct {
	// err is the attempt's error; nil when every target accepted.
	err error
	// cancelled: the bridge stopped working on the message (shutdown, an
	// abandoned source). Nothing was learned about it.
	cancelled bool
	// uncounted: the failure was the infrastructure's (outbox full or
	// slow), not the message's; the replay budget is not charged.
	uncounted bool
	// dlqFailed: a DLQ write for this message has just failed.
	dlqFailed bool
	// canRetry: the source can hand the message back after a delay.
	canRetry bool
	// redelivers: the source sends back what the bridge never settled.
	redelivers bool
	// hasDLQ: a DLQ store is configured.
	hasDLQ bool
	// failures counts the message's own failures, this one included (the
	// replay budget's count); age is the time since the first of them.
	failures int
	age      time.Duration
	// attempt is the number of the attempt that failed, which drives the
	// backoff; rnd is the jitter's random number in [0,1).
	attempt int
	rnd     float64
}

// verdict is decide's answer.
type verdict struct {
	kind verdictKind
	// delay before the retry (settleRetry).
	delay time.Duration
	// category of the DLQ entry, or of the terminal outcome a drop counts
	// as (settleDeadLetter, settleDrop).
	category ports.DLQCategory
	// reason labels a drop and explains a terminal outcome or a requeue.
	reason string
	// err is the error the outcome records: the attempt's, or a poison
	// error wrapping it.
	err error
}

// decide is the route's outcome table: from one attempt's facts and the
// route's policy, what happens to the message. It is pure; the caller
// carries the verdict out and, when that fails (the source cannot retry
// after all, the DLQ refused the entry), updates the facts and decides
// again. Every path ends in at most three decisions.
func decide(f attemptFacts, p Policy) verdict {
	if f.err == nil {
		return verdict{kind: settleAck}
	}
	if f.cancelled {
		return verdict{kind: settleUnsettled, reason: "cancelled", err: f.err}
	}
	if f.dlqFailed {
		// The evidence could not be stored: hand the message back so it
		// can be written later, without charging its budget.
		return requeueVerdict(f, p, reasonDLQUnavailable)
	}
	switch fault.ClassOf(f.err) {
	case fault.ClassRejected:
		if errors.Is(f.err, fault.ErrMessageFiltered) {
			return terminalVerdict(f, p.OnFiltered, ports.DLQFiltered, reasonFiltered, f.err)
		}
		return terminalVerdict(f, Drop, ports.DLQRejected, reasonRejected, f.err)
	case fault.ClassExpired:
		return terminalVerdict(f, p.OnExpired, ports.DLQExpired, reasonExpired, f.err)
	case fault.ClassPermanent:
		return terminalVerdict(f, p.OnPermanentFailure, ports.DLQPermanent, reasonPermanent, f.err)
	}
	if f.uncounted {
		return requeueVerdict(f, p, reasonOutboxUnavailable)
	}
	if f.failures >= p.MaxReplayAttempts && f.age >= p.ReplayBudget {
		return terminalVerdict(f, fallback(f), ports.DLQMaxRetries, reasonPoison, fault.ErrPoisonMessage.Wrap(f.err))
	}
	if !f.canRetry {
		return terminalVerdict(f, fallback(f), ports.DLQRetryUnsupported, reasonRetryUnsupported, f.err)
	}
	return verdict{kind: settleRetry, delay: retryDelay(f, p), reason: "transient", err: f.err}
}

// requeueVerdict hands back a message whose failure was not its own.
// A source that cannot retry sends it to the DLQ unless that is what
// failed, else leaves it for its redelivery, and only when it has neither
// drops it under reason.
func requeueVerdict(f attemptFacts, p Policy, reason string) verdict {
	switch {
	case f.canRetry:
		return verdict{kind: settleRetry, delay: retryDelay(f, p), reason: reason, err: f.err}
	case f.hasDLQ && !f.dlqFailed:
		return verdict{kind: settleDeadLetter, category: ports.DLQRetryUnsupported, reason: reasonRetryUnsupported, err: f.err}
	case f.redelivers:
		return verdict{kind: settleUnsettled, reason: reason, err: f.err}
	}
	return verdict{kind: settleDrop, reason: reason, err: f.err}
}

// terminalVerdict ends a message that will not be retried, as action
// says; a DLQ action without a DLQ store drops it.
func terminalVerdict(f attemptFacts, action Action, cat ports.DLQCategory, reason string, err error) verdict {
	if action == DLQ && f.hasDLQ {
		return verdict{kind: settleDeadLetter, category: cat, reason: reason, err: err}
	}
	return verdict{kind: settleDrop, category: cat, reason: reason, err: err}
}

// fallback is where a message goes when retrying is over.
func fallback(f attemptFacts) Action {
	if f.hasDLQ {
		return DLQ
	}
	return Drop
}

// retryDelay is the backoff for f.attempt, or the error's retry-after
// hint when that is longer.
func retryDelay(f attemptFacts, p Policy) time.Duration {
	d := p.Backoff.Delay(f.attempt, f.rnd)
	if hint := fault.RetryAfter(f.err); hint > d {
		d = hint
	}
	return d
}
