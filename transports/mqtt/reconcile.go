package mqtt

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/eclipse/paho.golang/paho"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Reconcile makes plan's subscriptions the session's desired set, besides
// the subscriptions of attached receivers, and converges the broker
// session to it: missing or changed subscriptions are subscribed, others
// unsubscribed. The session re-applies the set after every reconnect.
// While disconnected the plan is kept and a transient CONNECTION_LOST
// error says it is not applied yet. Publishers need no preparation in
// MQTT and are ignored.
func (s *Session) Reconcile(ctx context.Context, plan ports.SessionPlan) error {
	subs := make([]subscription, 0, len(plan.Subscriptions))
	for i, p := range plan.Subscriptions {
		if err := checkFilter(p.Source); err != nil {
			return fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("subscriptions[%d].source: %v", i, err))
		}
		if p.QoS < 0 || p.QoS > 2 || p.RetainHandling < 0 || p.RetainHandling > 2 {
			return fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("subscriptions[%d]: qos and retain_handling must be 0, 1 or 2", i))
		}
		subs = append(subs, fromPort(p))
	}
	s.subs.setPlan(subs)
	if !s.st.health().Connected {
		return fault.ErrConnectionLost.WithMessage("mqtt session not connected; the plan is applied once it is")
	}
	return s.converge(ctx)
}

// reconcileLoop converges after every connection and retries a failed
// convergence with the reconnect backoff. It ends with ctx.
func (s *Session) reconcileLoop(ctx context.Context, run *connRun) {
	defer close(run.loopDone)
	var (
		timer   *time.Timer
		retry   <-chan time.Time
		attempt int
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		case <-retry:
		}
		if timer != nil {
			// A kick can end the wait before the retry timer fired; stop it
			// rather than leave it running (the next failure makes a new one).
			timer.Stop()
			timer = nil
		}
		retry = nil
		if err := s.converge(ctx); err != nil && s.st.health().Connected && ctx.Err() == nil {
			attempt++
			s.o.logger.Warn("mqtt subscriptions not converged; will retry", "session", s.o.name, "error", err)
			timer = time.NewTimer(max(s.backoff.forStep(attempt), 10*time.Millisecond))
			retry = timer.C
		} else {
			attempt = 0
		}
	}
}

// converge subscribes what is desired but not applied and unsubscribes
// what is applied but no longer desired.
func (s *Session) converge(ctx context.Context) error {
	cm := s.manager()
	if cm == nil {
		return fault.ErrConnectionLost.WithMessage("mqtt session not started")
	}
	var errs []error
	if err := s.recallHeld(ctx); err != nil {
		// Subscribe what is desired anyway; what the broker may still hold
		// from an earlier start is unsubscribed once the ledger answers.
		errs = append(errs, err)
	}
	want, applied := s.subs.desired(), s.subs.appliedCopy()
	var add []subscription
	for k, w := range want {
		if a, ok := applied[k]; !ok || a != w {
			add = append(add, w)
		}
	}
	slices.SortFunc(add, func(a, b subscription) int { return strings.Compare(a.Topic, b.Topic) })
	if len(add) > 0 {
		opts := make([]paho.SubscribeOptions, len(add))
		for i, a := range add {
			opts[i] = a.options()
		}
		sctx, cancel := context.WithTimeout(ctx, s.cfg.PacketTimeout)
		sa, err := cm.Subscribe(sctx, &paho.Subscribe{Subscriptions: opts})
		cancel()
		switch {
		case sa != nil:
			for i, code := range sa.Reasons {
				if i >= len(add) {
					break
				}
				if code >= 0x80 {
					errs = append(errs, fmt.Errorf("subscribe %q: %w", add[i].Topic, subscribeFault(code)))
				} else {
					s.subs.markApplied(add[i])
				}
			}
		case err != nil:
			errs = append(errs, fault.ErrConnectionLost.WithMessage("mqtt subscribe").Wrap(err))
		}
	}
	var drop []string
	for k := range applied {
		if _, ok := want[k]; !ok {
			drop = append(drop, k)
		}
	}
	if len(drop) > 0 {
		slices.Sort(drop)
		uctx, cancel := context.WithTimeout(ctx, s.cfg.PacketTimeout)
		ua, err := cm.Unsubscribe(uctx, &paho.Unsubscribe{Topics: drop})
		cancel()
		if ua != nil || err == nil {
			for _, t := range drop {
				s.subs.markRemoved(t)
			}
			s.o.logger.Info("mqtt subscriptions no longer configured were unsubscribed", "session", s.o.name, "filters", drop)
		} else {
			errs = append(errs, fault.ErrConnectionLost.WithMessage("mqtt unsubscribe").Wrap(err))
		}
	}
	if err := s.recordHeld(ctx); err != nil {
		errs = append(errs, err)
	}
	now := s.subs.appliedCopy()
	missing := 0
	for k := range want {
		if _, ok := now[k]; !ok {
			missing++
		}
	}
	detail := "connected; all subscriptions applied"
	if missing > 0 {
		detail = fmt.Sprintf("connected; %d of %d subscriptions not applied", missing, len(want))
	}
	s.st.subscribed(missing == 0, detail)
	return errors.Join(errs...)
}
