package service

import (
	"context"
	"fmt"
	"sync"

	"github.com/gobridge-oss/gobridge/core/cluster"
	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// brokerHealthOf is the broker-health step-down policy of a route session
// block: off unless broker_health_step_down is a duration.
func brokerHealthOf(s *config.RouteSession) cluster.BrokerHealth {
	if s == nil || s.BrokerHealthStepDown == nil || s.BrokerHealthStepDown.Off {
		return cluster.BrokerHealth{}
	}
	return cluster.BrokerHealth{After: s.BrokerHealthStepDown.Duration}
}

// sourceProbe is the cluster.HealthProbe of an exclusive route: the path
// is converged while the receiver of the current term consumes (a
// receiver that reports its source health), or else while its session is
// connected and subscribed; the broker is reachable while the session is
// connected, which a standby whose session stays up (AMQP) can tell.
type sourceProbe struct {
	sess ports.Session // the receiver's session; nil without one

	mu   sync.Mutex
	recv ports.Receiver // the current term's receiver
}

// Converged implements cluster.HealthProbe.
func (p *sourceProbe) Converged() (bool, string) {
	p.mu.Lock()
	recv := p.recv
	p.mu.Unlock()
	if r, ok := recv.(ports.SourceHealthReporter); ok {
		h := r.SourceHealth()
		return h.Converged, h.Detail
	}
	if p.sess == nil {
		return true, "" // refused at build: sourceProbeOf
	}
	h := p.sess.Health(context.Background())
	return h.Connected && h.Subscribed, h.Detail
}

// Reachable implements cluster.HealthProbe.
func (p *sourceProbe) Reachable() bool {
	return p.sess != nil && p.sess.Health(context.Background()).Connected
}

func (p *sourceProbe) setReceiver(r ports.Receiver) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.recv = r
}

// sourceProbeOf prepares broker-health step-down for rc, whose first
// term's receiver is first: it returns the probe the route hands its
// session lease's manager when it starts, or nil when the route's session
// block leaves broker_health_step_down off. It refuses the key where
// nothing could act on it: a route whose source does not wait for the
// lease (the lease then fences only draining, and the source runs on
// every instance), and a receiver that tells nothing of its broker path.
// b.mu is held.
func (b *Service) sourceProbeOf(rc config.Route, rr *routeRun, first ports.Receiver) (*sourceProbe, error) {
	if brokerHealthOf(rc.Session).After == 0 {
		return nil, nil
	}
	path := fmt.Sprintf("route %s: session.broker_health_step_down", rc.ID)
	if rr.excl == nil {
		return nil, fault.ErrInvalidConfig.WithMessage(path + ": not supported yet on a source that does not connect after the lease (connect_after_lease: false); set it to off")
	}
	p := &sourceProbe{recv: first}
	for _, e := range entries(b.file) {
		if e.kind == registry.KindReceiver && e.id == rc.ReceiverID && e.sessionID != "" {
			if c, ok := b.comps[key(registry.KindSession, e.sessionID)]; ok {
				p.sess, _ = c.value.(ports.Session)
			}
		}
	}
	if _, ok := first.(ports.SourceHealthReporter); !ok && p.sess == nil {
		return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("%s: not supported yet for receiver %s: it has no session and does not report the health of its source; set it to off", path, rc.ReceiverID))
	}
	// Each later term consumes through a fresh receiver: follow it.
	inner := rr.excl.fresh
	rr.excl.fresh = func(ctx context.Context) (*runtime.Runtime, ports.Receiver, error) {
		rt, recv, err := inner(ctx)
		if err == nil {
			p.setReceiver(recv)
		}
		return rt, recv, err
	}
	return p, nil
}

// brokerHealthCheck refuses broker_health_step_down where nothing would
// act on it: on a route whose source does not wait for the lease, and on
// a receiver without a session (no receiver without one reports its
// broker path).
func brokerHealthCheck(f *config.File) []config.Problem {
	var out []config.Problem
	for i, r := range f.Routes {
		if brokerHealthOf(r.Session).After == 0 {
			continue
		}
		path := fmt.Sprintf("routes[%d].session.broker_health_step_down", i)
		if !connectsAfterLease(r) {
			out = append(out, config.Problem{Path: path,
				Message: "not supported yet on a source that does not connect after the lease (connect_after_lease: false): the source runs on every instance; set it to off"})
			continue
		}
		if rc, ok := componentByID(f.Receivers, r.ReceiverID); ok && rc.SessionID == "" {
			out = append(out, config.Problem{Path: path,
				Message: fmt.Sprintf("not supported yet for receiver %s: without a session it does not report the health of its broker path; set it to off", r.ReceiverID)})
		}
	}
	return out
}
