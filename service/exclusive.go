package service

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gobridge-oss/gobridge/core/cluster"
	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/httpapi"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// stateStandby is the state of an exclusive route on an instance that
// does not hold the route session's lease: its source is not connected,
// and it starts as soon as the lease is won.
const stateStandby = httpapi.RouteStandby

// exclusive is what an exclusive route (a session block with
// connect_after_lease) needs to run one term after another: the session's
// lease, and a way to build a fresh receiver and runtime for each term (a
// receiver runs once).
type exclusive struct {
	mgr   *cluster.Manager
	fresh func(ctx context.Context) (*runtime.Runtime, ports.Receiver, error)
	// sess is set when the receiver's session is itself exclusive (MQTT):
	// it connects at the start of each term and disconnects at its end,
	// and every term's receiver, the first one's included, is closed
	// once the session disconnected.
	sess termSession
	// initial is the first term's receiver, built with the components.
	initial ports.Receiver
	// fence tells the route's runtimes whether the current term is still
	// certainly held.
	fence *termFence
}

// termFence is the runtime fence of an exclusive route: it holds while
// the term the route runs in is valid, and not between terms.
type termFence struct{ term atomic.Pointer[cluster.Term] }

// held implements runtime.Options.Fence.
func (f *termFence) held() bool {
	t := f.term.Load()
	return t != nil && t.Valid()
}

// connectsAfterLease reports whether rc's source may connect only on the
// holder of its session's lease.
func connectsAfterLease(rc config.Route) bool {
	s := rc.Session
	return s != nil && (s.ConnectAfterLease == nil || *s.ConnectAfterLease)
}

// exclusiveOf prepares the terms of rc, an exclusive route whose runtime
// for the first term is rt's route r with opts; b.mu is held.
func (b *Service) exclusiveOf(rc config.Route, r runtime.Route, opts runtime.Options, keys []string) (*exclusive, error) {
	if len(keys) != 1 {
		return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("route %s: an exclusive source needs one session lease", rc.ID))
	}
	mgr := b.leases.manager(keys[0])
	if mgr == nil {
		return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("route %s: no lease manager for %s", rc.ID, keys[0]))
	}
	var e entry
	for _, c := range entries(b.file) {
		if c.kind == registry.KindReceiver && c.id == rc.ReceiverID {
			e = c
		}
	}
	d := b.deps(e.id)
	d.MaxInFlight = receiverInFlight(b.file, e.id)
	var sess termSession
	if e.sessionID != "" {
		if c, ok := b.comps[key(registry.KindSession, e.sessionID)]; ok {
			d.Session = c.value.(ports.Session)
			var err error
			if sess, err = deferSession(b.file, rc, e.sessionID, d.Session); err != nil {
				return nil, err
			}
		}
	}
	reg, stopTimeout := b.opts.Registry, b.file.Bridge.ShutdownTimeout
	fresh := func(ctx context.Context) (*runtime.Runtime, ports.Receiver, error) {
		cfg, err := reg.Decode(e.kind, e.typ, e.settings)
		if err != nil {
			return nil, nil, fault.ErrInvalidConfig.WithMessage(err.Error())
		}
		f, _ := reg.Receiver(e.typ)
		v, err := f.Build(ctx, cfg, d)
		if err != nil {
			return nil, nil, err
		}
		recv := v.(ports.Receiver)
		if st, ok := recv.(interface{ SetStopTimeout(time.Duration) }); ok {
			st.SetStopTimeout(stopTimeout)
		}
		nr := r
		nr.Receiver = recv
		rt, err := runtime.New([]runtime.Route{nr}, opts)
		if err != nil {
			_ = closeValue(context.WithoutCancel(ctx), recv)
			return nil, nil, err
		}
		return rt, recv, nil
	}
	return &exclusive{mgr: mgr, fresh: fresh, sess: sess, initial: r.Receiver}, nil
}

// runExclusive runs the route term after term until ctx ends: it waits
// for the session's lease as a standby, runs the route while the lease is
// held, and when the lease is lost stops it (intake stops, in-flight
// deliveries get the shutdown timeout and are otherwise left to their
// source), closes its receiver and waits for the lease again. The process
// keeps running throughout. When the receiver's session is itself the
// exclusive part (MQTT), the session connects after the route's runtime
// is built for the term and disconnects once the runtime stopped, before
// the receiver is closed.
//
// A source that fails while the lease is held is connected again, with a
// fresh receiver, after a growing pause: taking over from an owner that
// froze (rather than died), an exclusive consumer is refused until the
// broker has dropped the frozen owner's connection.
func (rr *routeRun) runExclusive(ctx context.Context) error {
	first := true
	pause := time.Duration(0)
	for {
		if pause == 0 {
			rr.setState(stateStandby, "")
		}
		term, err := rr.excl.mgr.Hold(ctx)
		if err != nil {
			return nil
		}
		rt := rr.currentRuntime()
		var recv ports.Receiver
		if !first {
			rt, recv, err = rr.excl.fresh(ctx)
			if err != nil {
				term.Release()
				return err
			}
			rr.setRuntime(rt)
		} else if rr.excl.sess != nil {
			recv = rr.excl.initial
		}
		first = false
		rr.excl.fence.term.Store(term)
		rr.log.Info("session lease held; the route's source connects", "version", term.Token().Version)
		rr.setState(stateRunning, "")
		runCtx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-term.Lost():
				cancel()
			case <-runCtx.Done():
			}
		}()
		if rr.excl.sess != nil {
			rr.beginSessionTerm(runCtx, term.Valid)
		}
		err = rt.Run(runCtx)
		lost := runCtx.Err() != nil && ctx.Err() == nil
		cancel()
		if rr.excl.sess != nil {
			rr.endSessionTerm(ctx)
		}
		if recv != nil {
			_ = closeValue(context.WithoutCancel(ctx), recv)
		}
		rr.excl.fence.term.Store(nil)
		term.Release()
		switch {
		case ctx.Err() != nil:
			return err
		case lost:
			pause = 0
			rr.log.Info("session lease lost; the route's source disconnected, waiting as a standby")
		default:
			pause = min(max(2*pause, time.Second), 30*time.Second)
			rr.setState(stateFailed, fmt.Sprintf("source failed, connecting again in %s: %v", pause, err))
			rr.log.Error("the route's source failed while holding the lease; connecting it again", "err", err, "in", pause)
			t := time.NewTimer(pause)
			select {
			case <-ctx.Done():
				t.Stop()
				return err
			case <-t.C:
			}
		}
	}
}
