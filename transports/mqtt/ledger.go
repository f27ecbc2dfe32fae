package mqtt

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// ledgerActive reports whether the session keeps a managed-subscription
// ledger: one was given and the broker keeps the session after a
// disconnect (session_expiry above zero), so subscriptions outlive the
// process that made them.
func (s *Session) ledgerActive() bool {
	return s.o.ledger != nil && s.cfg.SessionExpiry > 0
}

// ledgerKey names the broker-side session in the ledger: the client
// identifier and the first broker address. Changing either starts a new
// baseline.
func (s *Session) ledgerKey() string {
	host := ""
	if len(s.urls) > 0 {
		host = s.urls[0].Host
	}
	return "mqtt|" + host + "|" + s.clientID
}

// recallHeld reads the ledger when the broker resumed a session whose
// subscriptions this process does not know (its first connection, or the
// first of a new lease term) and marks what the ledger records as held, so
// that converge unsubscribes what is no longer desired. On a first start
// (nothing recorded) there is nothing to recall: what converge applies
// becomes the baseline.
func (s *Session) recallHeld(ctx context.Context) error {
	if !s.ledgerActive() || !s.subs.heldUnknown() {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, s.cfg.PacketTimeout)
	defer cancel()
	subs, baselined, err := s.o.ledger.LoadSubscriptions(lctx, s.ledgerKey())
	if err != nil {
		return fmt.Errorf("mqtt session %s: reading stores.managed_subscriptions: %w", s.o.name, err)
	}
	held := make([]subscription, len(subs))
	for i, m := range subs {
		held[i] = subscription{Topic: m.Filter, QoS: m.QoS}
	}
	s.subs.recall(held)
	if baselined {
		s.subs.recorded(subs)
	}
	s.o.logger.Info("mqtt managed subscriptions recalled", "session", s.o.name,
		"recorded", len(subs), "first_start", !baselined)
	return nil
}

// recordHeld saves what the broker holds once it differs from what was
// last saved. It does nothing while the held set is not known, so that a
// failed read never overwrites a record with a partial set.
func (s *Session) recordHeld(ctx context.Context) error {
	if !s.ledgerActive() || s.subs.heldUnknown() {
		return nil
	}
	applied := s.subs.appliedCopy()
	if applied == nil {
		return nil
	}
	set := make([]ports.ManagedSubscription, 0, len(applied))
	for _, a := range applied {
		set = append(set, ports.ManagedSubscription{Filter: a.Topic, QoS: a.QoS})
	}
	slices.SortFunc(set, func(a, b ports.ManagedSubscription) int { return strings.Compare(a.Filter, b.Filter) })
	if last, ok := s.subs.lastRecorded(); ok && slices.Equal(last, set) {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, s.cfg.PacketTimeout)
	defer cancel()
	if err := s.o.ledger.SaveSubscriptions(sctx, s.ledgerKey(), set); err != nil {
		return fmt.Errorf("mqtt session %s: writing stores.managed_subscriptions: %w", s.o.name, err)
	}
	s.subs.recorded(set)
	return nil
}
