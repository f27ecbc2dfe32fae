package service

import (
	"context"
	"fmt"
	"time"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// termSession is a session whose connection itself is the exclusive
// part of a source (an MQTT session under a fixed client id): it connects
// only within the lease terms of the route it feeds. The MQTT transport's
// Session implements it.
type termSession interface {
	ports.Session
	// DeferConnect makes Start leave the session unconnected; it is
	// called once, before Start.
	DeferConnect() error
	// Deferred reports whether DeferConnect was called.
	Deferred() bool
	// BeginTerm connects for one lease term; valid guards every
	// connection attempt of the term.
	BeginTerm(ctx context.Context, valid func() bool) error
	// EndTerm disconnects, leaving what is unsettled to the broker.
	EndTerm(ctx context.Context) error
	// AwaitingLease reports whether the session is between terms.
	AwaitingLease() bool
}

// awaitingLease reports whether s is not connected only because this
// instance does not hold the lease of the route it feeds: a standby's
// state, which lowers neither readiness nor deep health.
func awaitingLease(s ports.Session) bool {
	ts, ok := s.(termSession)
	return ok && ts.AwaitingLease()
}

// deferSession prepares the session of an exclusive route's receiver,
// when its transport makes the session the exclusive part: from then on
// it connects only within the route's lease terms. Such a session may
// carry nothing but that receiver: another receiver or a sender on it
// would be cut off on every standby. Returns nil when the session is not
// of that kind (an AMQP session stays connected; only the consumer
// waits).
func deferSession(f *config.File, rc config.Route, sessionID string, s ports.Session) (termSession, error) {
	ts, ok := s.(termSession)
	if !ok {
		return nil, nil
	}
	var others []string
	for _, c := range f.Receivers {
		if c.SessionID == sessionID && c.ID != rc.ReceiverID {
			others = append(others, "receiver "+c.ID)
		}
	}
	for _, c := range f.Senders {
		if c.SessionID == sessionID {
			others = append(others, "sender "+c.ID)
		}
	}
	if len(others) > 0 {
		return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf(
			"route %s: session %s connects only on the instance holding the route's lease (connect_after_lease), so it may carry only receiver %s; %v use it too: give them a session of their own",
			rc.ID, sessionID, rc.ReceiverID, others))
	}
	if ts.Deferred() {
		return ts, nil // kept by a reload
	}
	if err := ts.DeferConnect(); err != nil {
		return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("route %s: session %s: %v", rc.ID, sessionID, err))
	}
	return ts, nil
}

// sessionTermTimeout bounds the first connection attempt of a term and
// the disconnect at its end.
const sessionTermTimeout = 10 * time.Second

// beginSessionTerm connects the route's exclusive session for a term. A
// failed first attempt is logged; the session keeps trying within the
// term, and the receiver reports a session that ended for good.
func (rr *routeRun) beginSessionTerm(ctx context.Context, valid func() bool) {
	ctx, cancel := context.WithTimeout(ctx, sessionTermTimeout)
	defer cancel()
	if err := rr.excl.sess.BeginTerm(ctx, valid); err != nil && ctx.Err() == nil {
		rr.log.Error("the route's session did not connect at the start of the lease term; it keeps trying", "err", err)
	}
}

// endSessionTerm disconnects the route's exclusive session once the
// term's runtime stopped; what the route left unsettled goes back to the
// broker for the next holder.
func (rr *routeRun) endSessionTerm(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionTermTimeout)
	defer cancel()
	if err := rr.excl.sess.EndTerm(ctx); err != nil {
		rr.log.Error("the route's session did not disconnect cleanly at the end of the lease term", "err", err)
	}
}
