package ports

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// ManagedSubscription is one subscription the bridge asked a broker to keep
// for a durable session: a topic filter and the quality of service it was
// made with.
type ManagedSubscription struct {
	// Filter is the topic filter exactly as it was sent to the broker.
	Filter string
	// QoS is the maximum quality of service of the subscription.
	QoS byte
}

// SubscriptionLedger remembers, per durable broker session, the
// subscriptions the bridge made in it. A broker keeps a durable session's
// subscriptions across disconnects and restarts, so one removed from the
// configuration would go on delivering into the session, to be acked and
// dropped, unless the bridge unsubscribes it; the ledger is how a later
// start knows what was there.
//
// Session keys are chosen by the transport (the MQTT one uses the broker
// address and the client identifier) and must not be empty; Load of an
// empty key fails with INVALID_CONFIG. The ledger
// holds no lease token: only the instance that holds an exclusive
// session's lease connects that session, and a stale writer records the
// same configuration's set.
type SubscriptionLedger interface {
	// LoadSubscriptions returns the set last saved for session, ordered by
	// filter. baselined is false when nothing was ever saved for it (a
	// first start), true after any save, an empty set included.
	LoadSubscriptions(ctx context.Context, session string) (subs []ManagedSubscription, baselined bool, err error)
	// SaveSubscriptions replaces the set recorded for session with subs.
	// Filters are unique and not empty within subs; otherwise, and for an
	// empty session key, it fails with INVALID_CONFIG and changes nothing.
	SaveSubscriptions(ctx context.Context, session string, subs []ManagedSubscription) error
}

// CheckSubscriptions checks a session key and a set for SaveSubscriptions
// and returns a copy of subs ordered by filter, the order ledgers keep.
// It fails with INVALID_CONFIG for an empty session key, an empty filter
// or a filter given twice.
func CheckSubscriptions(session string, subs []ManagedSubscription) ([]ManagedSubscription, error) {
	if session == "" {
		return nil, fault.ErrInvalidConfig.WithMessage("managed subscriptions: the session key is empty")
	}
	out := slices.Clone(subs)
	slices.SortFunc(out, func(a, b ManagedSubscription) int { return strings.Compare(a.Filter, b.Filter) })
	for i, s := range out {
		if s.Filter == "" {
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("managed subscriptions of %q: an empty topic filter", session))
		}
		if i > 0 && out[i-1].Filter == s.Filter {
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("managed subscriptions of %q: filter %q given twice", session, s.Filter))
		}
	}
	return out, nil
}
