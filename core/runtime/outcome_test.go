package runtime

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

var (
	errTransient = fault.ErrConnectionLost
	errPermanent = fault.ErrForbidden
	errExpired   = fault.ErrMessageExpired
	errFiltered  = fault.ErrMessageFiltered
	errRejected  = fault.NewWithClass(fault.ClassRejected, fault.CodeSchemaViolation, "refused by a processor")
)

// decision is the part of a verdict the table compares.
type decision struct {
	Kind     string
	Category ports.DLQCategory
	Reason   string
}

func decided(v verdict) decision {
	return decision{Kind: v.kind.String(), Category: v.category, Reason: v.reason}
}

// policy is the default policy with jitter off, so delays are exact.
func policy(mut func(*Policy)) Policy {
	p := Policy{Backoff: Backoff{Jitter: new(float64)}}
	if mut != nil {
		mut(&p)
	}
	return p.withDefaults()
}

// retrying is a source that can retry and redelivers, with a DLQ: the
// common case each row changes one thing of.
func retrying(err error) attemptFacts {
	return attemptFacts{err: err, canRetry: true, redelivers: true, hasDLQ: true, failures: 1, attempt: 1}
}

// TestDecideRules checks the outcome table row by row against the rules of
// the delivery policy: terminal actions per error class, the poison gate
// (attempts AND budget), failures that do not charge the budget, and
// cancellation.
func TestDecideRules(t *testing.T) {
	dlqOff := func(p *Policy) { p.OnExpired, p.OnPermanentFailure, p.OnFiltered = Drop, Drop, Drop }
	spent := func(f attemptFacts) attemptFacts { f.failures, f.age = 5, 15*time.Minute; return f }
	with := func(f attemptFacts, mut func(*attemptFacts)) attemptFacts { mut(&f); return f }
	for _, tc := range []struct {
		name string
		f    attemptFacts
		pol  func(*Policy)
		want decision
	}{
		{"accepted", retrying(nil), nil, decision{"ack", "", ""}},
		{"transient failure is retried", retrying(errTransient), nil, decision{"retry", "", "transient"}},
		{"permanent failure goes to the DLQ by default", retrying(errPermanent), nil, decision{"dead-letter", ports.DLQPermanent, reasonPermanent}},
		{"permanent failure dropped when on_permanent_failure: drop", retrying(errPermanent), dlqOff, decision{"drop", ports.DLQPermanent, reasonPermanent}},
		{"expired goes to the DLQ by default", retrying(errExpired), nil, decision{"dead-letter", ports.DLQExpired, reasonExpired}},
		{"expired dropped when on_expired: drop", retrying(errExpired), dlqOff, decision{"drop", ports.DLQExpired, reasonExpired}},
		{"filtered is dropped by default", retrying(errFiltered), nil, decision{"drop", ports.DLQFiltered, reasonFiltered}},
		{"filtered goes to the DLQ when on_filtered: dlq", retrying(errFiltered), func(p *Policy) { p.OnFiltered = DLQ }, decision{"dead-letter", ports.DLQFiltered, reasonFiltered}},
		{"rejected is dropped whatever the policy", retrying(errRejected), func(p *Policy) { p.OnPermanentFailure = DLQ }, decision{"drop", ports.DLQRejected, reasonRejected}},
		{"dlq action without a DLQ store drops", with(retrying(errPermanent), func(f *attemptFacts) { f.hasDLQ = false }), nil, decision{"drop", ports.DLQPermanent, reasonPermanent}},
		{"attempts spent, budget not: retried", with(retrying(errTransient), func(f *attemptFacts) { f.failures = 9 }), nil, decision{"retry", "", "transient"}},
		{"budget spent, attempts not: retried", with(retrying(errTransient), func(f *attemptFacts) { f.age = time.Hour }), nil, decision{"retry", "", "transient"}},
		{"attempts and budget spent: poison to the DLQ", spent(retrying(errTransient)), nil, decision{"dead-letter", ports.DLQMaxRetries, reasonPoison}},
		{"poison without a DLQ store is dropped", with(spent(retrying(errTransient)), func(f *attemptFacts) { f.hasDLQ = false }), nil, decision{"drop", ports.DLQMaxRetries, reasonPoison}},
		{"source cannot retry: DLQ", with(retrying(errTransient), func(f *attemptFacts) { f.canRetry = false }), nil, decision{"dead-letter", ports.DLQRetryUnsupported, reasonRetryUnsupported}},
		{"source cannot retry, no DLQ: drop (allow_retry_drop)", with(retrying(errTransient), func(f *attemptFacts) { f.canRetry, f.hasDLQ = false, false }), nil, decision{"drop", ports.DLQRetryUnsupported, reasonRetryUnsupported}},
		{"outbox full is retried without charging the budget", with(spent(retrying(errTransient)), func(f *attemptFacts) { f.uncounted = true }), nil, decision{"retry", "", reasonOutboxUnavailable}},
		{"outbox full, source cannot retry: DLQ", with(retrying(errTransient), func(f *attemptFacts) { f.uncounted, f.canRetry = true, false }), nil, decision{"dead-letter", ports.DLQRetryUnsupported, reasonRetryUnsupported}},
		{"outbox full, no retry, no DLQ, redelivers: unsettled", with(retrying(errTransient), func(f *attemptFacts) { f.uncounted, f.canRetry, f.hasDLQ = true, false, false }), nil, decision{"unsettled", "", reasonOutboxUnavailable}},
		{"outbox full, nothing else: drop", with(retrying(errTransient), func(f *attemptFacts) { f.uncounted, f.canRetry, f.hasDLQ, f.redelivers = true, false, false, false }), nil, decision{"drop", "", reasonOutboxUnavailable}},
		{"DLQ refused: handed back", with(retrying(errPermanent), func(f *attemptFacts) { f.dlqFailed = true }), nil, decision{"retry", "", reasonDLQUnavailable}},
		{"DLQ refused, no retry, redelivers: unsettled", with(retrying(errPermanent), func(f *attemptFacts) { f.dlqFailed, f.canRetry = true, false }), nil, decision{"unsettled", "", reasonDLQUnavailable}},
		{"DLQ refused, neither retry nor redelivery: drop", with(retrying(errPermanent), func(f *attemptFacts) { f.dlqFailed, f.canRetry, f.redelivers = true, false, false }), nil, decision{"drop", "", reasonDLQUnavailable}},
		{"cancelled permanent failure stays unsettled even under drop", with(retrying(errPermanent), func(f *attemptFacts) { f.cancelled = true }), dlqOff, decision{"unsettled", "", "cancelled"}},
		{"cancelled transient failure stays unsettled", with(spent(retrying(errTransient)), func(f *attemptFacts) { f.cancelled = true }), nil, decision{"unsettled", "", "cancelled"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, decided(decide(tc.f, policy(tc.pol)))); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecideDelay: the retry delay follows the backoff ladder of the
// failed attempt, or a longer retry-after hint.
func TestDecideDelay(t *testing.T) {
	p := policy(nil)
	for _, tc := range []struct {
		attempt int
		err     error
		want    time.Duration
	}{
		{1, errTransient, time.Second},
		{3, errTransient, 4 * time.Second},
		{10, errTransient, 30 * time.Second},
		{1, fault.ErrThrottled.WithRetryAfter(time.Minute), time.Minute},
	} {
		f := retrying(tc.err)
		f.attempt = tc.attempt
		if got := decide(f, p).delay; got != tc.want {
			t.Errorf("attempt %d, %v: delay %s, want %s", tc.attempt, tc.err, got, tc.want)
		}
	}
}

// TestDecideInvariants sweeps every combination of error class, delivery
// mode (the outbox is a source that always retries and never redelivers
// on its own), source capability and policy, and checks what must hold in
// each: nothing the bridge stopped working on is settled, nothing is
// retried by a source that cannot, the DLQ is used only when there is one
// and it did not just fail, a message is dropped only when it neither can
// come back nor be stored, and every chain of decisions ends.
func TestDecideInvariants(t *testing.T) {
	errs := []error{nil, errTransient, errPermanent, errExpired, errFiltered, errRejected}
	modes := []string{"direct_hold", "shared_outbox"}
	actions := []Action{DLQ, Drop}
	bools := []bool{false, true}
	n := 0
	for _, err := range errs {
		for _, mode := range modes {
			for _, canRetry := range bools {
				for _, redelivers := range bools {
					if mode == "shared_outbox" && (!canRetry || redelivers) {
						continue
					}
					for _, hasDLQ := range bools {
						for _, act := range actions {
							for _, spent := range bools {
								for _, uncounted := range bools {
									if uncounted && !fault.IsRecoverable(err) {
										continue // only an outbox or store failure is uncounted, and it is transient
									}
									for _, cancelled := range bools {
										f := attemptFacts{err: err, canRetry: canRetry, redelivers: redelivers, hasDLQ: hasDLQ,
											uncounted: uncounted, cancelled: cancelled, failures: 1, attempt: 1}
										if spent {
											f.failures, f.age = 100, 24*time.Hour
										}
										p := policy(func(p *Policy) { p.OnExpired, p.OnPermanentFailure, p.OnFiltered = act, act, act })
										name := fmt.Sprintf("%v/%s/retry=%v/redeliver=%v/dlq=%v/%s/spent=%v/uncounted=%v/cancelled=%v",
											err, mode, canRetry, redelivers, hasDLQ, act, spent, uncounted, cancelled)
										checkChain(t, name, f, p)
										n++
									}
								}
							}
						}
					}
				}
			}
		}
	}
	if n < 500 {
		t.Fatalf("swept only %d combinations", n)
	}
}

// checkChain follows the decisions the executor would make when carrying a
// verdict out fails (Retry not supported, DLQ write refused) and checks
// each against the invariants.
func checkChain(t *testing.T, name string, f attemptFacts, p Policy) {
	t.Helper()
	for step := 0; ; step++ {
		if step == 3 {
			t.Errorf("%s: no outcome after 3 decisions", name)
			return
		}
		v := decide(f, p)
		switch {
		case f.err == nil && v.kind != settleAck:
			t.Errorf("%s: accepted message got %s", name, v.kind)
		case f.err != nil && v.kind == settleAck:
			t.Errorf("%s: failed message acked as delivered", name)
		case f.cancelled && f.err != nil && v.kind != settleUnsettled:
			t.Errorf("%s: cancelled message got %s", name, v.kind)
		case v.kind == settleRetry && !f.canRetry:
			t.Errorf("%s: retry on a source that cannot", name)
		case v.kind == settleDeadLetter && (!f.hasDLQ || f.dlqFailed):
			t.Errorf("%s: dead-letter without a working DLQ", name)
		case v.kind == settleUnsettled && !f.redelivers && !f.cancelled:
			t.Errorf("%s: left unsettled on a source that never redelivers it", name)
		case v.kind == settleDrop && (f.dlqFailed || f.uncounted) && (f.canRetry || f.redelivers || (f.hasDLQ && !f.dlqFailed)):
			t.Errorf("%s: dropped a message whose failure was not its own although it could come back", name)
		case v.kind == settleRetry && v.delay <= 0:
			t.Errorf("%s: retry without a delay", name)
		}
		switch v.kind {
		case settleRetry:
			if f.canRetry {
				// The source may still say it cannot, at call time.
				f.canRetry = false
				continue
			}
		case settleDeadLetter:
			f.dlqFailed = true // the write may fail
			continue
		}
		return
	}
}
