package mqtt

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/eclipse/paho.golang/paho"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// subscription is one desired subscription with every MQTT v5 option.
type subscription struct {
	Topic             string
	QoS               byte
	NoLocal           bool
	RetainHandling    byte
	RetainAsPublished bool
}

func (s subscription) options() paho.SubscribeOptions {
	return paho.SubscribeOptions{Topic: s.Topic, QoS: s.QoS, NoLocal: s.NoLocal,
		RetainHandling: s.RetainHandling, RetainAsPublished: s.RetainAsPublished}
}

func fromPort(p ports.Subscription) subscription {
	return subscription{Topic: p.Source, QoS: byte(p.QoS), NoLocal: p.NoLocal, RetainHandling: byte(p.RetainHandling)}
}

func fromConfig(c SubscriptionConfig) subscription {
	return subscription{Topic: c.Topic, QoS: byte(c.EffectiveQoS()), NoLocal: c.NoLocal,
		RetainHandling: byte(c.RetainHandling), RetainAsPublished: c.RetainAsPublished}
}

// subscriptionSet is what a session should be subscribed to (the last
// Reconcile plan plus every attached receiver's subscriptions) and what
// the broker-side session is known to hold.
type subscriptionSet struct {
	receivers atomic.Pointer[[]*Receiver] // copy on write; read per message

	mu      sync.Mutex
	plan    []subscription
	applied map[string]subscription
	// unknown is set when the broker resumed a session whose
	// subscriptions this process never saw (only a ledger can tell them).
	unknown bool
	// saved is what the ledger holds for the session, once read or written.
	saved    []ports.ManagedSubscription
	hasSaved bool
}

// attach adds a receiver, whose subscriptions become desired and whose
// topics it receives.
func (ss *subscriptionSet) attach(r *Receiver) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var next []*Receiver
	if cur := ss.receivers.Load(); cur != nil {
		next = slices.Clone(*cur)
	}
	next = append(next, r)
	ss.receivers.Store(&next)
}

// detachClosed removes every closed receiver: its subscriptions are no
// longer desired and its topics go to no one.
func (ss *subscriptionSet) detachClosed() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	cur := ss.receivers.Load()
	if cur == nil {
		return
	}
	next := slices.DeleteFunc(slices.Clone(*cur), func(r *Receiver) bool { return r.closed.Load() })
	ss.receivers.Store(&next)
}

func (ss *subscriptionSet) setPlan(subs []subscription) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.plan = subs
}

// connected resets what is applied unless the broker resumed the session.
func (ss *subscriptionSet) connected(sessionPresent bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !sessionPresent || ss.applied == nil {
		ss.unknown = sessionPresent
		ss.applied = map[string]subscription{}
	}
}

// heldUnknown reports whether the broker may hold subscriptions the
// session does not know of.
func (ss *subscriptionSet) heldUnknown() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.unknown
}

// recall marks subscriptions a ledger recorded as held by the broker
// (those not known already) and ends the unknown state.
func (ss *subscriptionSet) recall(held []subscription) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.applied == nil {
		return
	}
	for _, h := range held {
		if _, ok := ss.applied[h.Topic]; !ok {
			ss.applied[h.Topic] = h
		}
	}
	ss.unknown = false
	ss.saved, ss.hasSaved = nil, false
}

// lastRecorded returns what was last written to the ledger in this
// session's life.
func (ss *subscriptionSet) lastRecorded() ([]ports.ManagedSubscription, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.saved, ss.hasSaved
}

func (ss *subscriptionSet) recorded(set []ports.ManagedSubscription) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.saved, ss.hasSaved = set, true
}

// forgetApplied drops what the session believes the broker holds, so
// that every desired subscription is subscribed again on the next
// connection.
func (ss *subscriptionSet) forgetApplied() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.applied = nil
}

// desired returns the wanted subscriptions by topic filter; a receiver's
// options win over a plan entry for the same filter.
func (ss *subscriptionSet) desired() map[string]subscription {
	ss.mu.Lock()
	plan := ss.plan
	ss.mu.Unlock()
	want := map[string]subscription{}
	for _, s := range plan {
		want[s.Topic] = s
	}
	if rs := ss.receivers.Load(); rs != nil {
		for _, r := range *rs {
			for _, s := range r.subs {
				want[s.Topic] = s
			}
		}
	}
	return want
}

func (ss *subscriptionSet) appliedCopy() map[string]subscription {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return maps.Clone(ss.applied)
}

func (ss *subscriptionSet) markApplied(s subscription) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.applied != nil {
		ss.applied[s.Topic] = s
	}
}

func (ss *subscriptionSet) markRemoved(topic string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.applied, topic)
}

// route returns the first attached receiver that is not closed and has a
// subscription matching topic; failing that the first closed one that
// matches (which hands the message on to the session, see rehome), or
// nil. A closed receiver stays attached until the session releases it, so
// without the preference a replacement built on the same session (a route
// restarted by a reload) would not see a message meanwhile.
func (ss *subscriptionSet) route(topic string) *Receiver {
	rs := ss.receivers.Load()
	if rs == nil {
		return nil
	}
	var closed *Receiver
	for _, r := range *rs {
		if !r.matches(topic) {
			continue
		}
		if !r.closed.Load() {
			return r
		}
		if closed == nil {
			closed = r
		}
	}
	return closed
}

// matches reports whether one of r's subscriptions matches topic.
func (r *Receiver) matches(topic string) bool {
	for _, f := range r.filters {
		if matchTopic(f, topic) {
			return true
		}
	}
	return false
}
