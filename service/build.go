package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// entry is one component a configuration file declares.
type entry struct {
	kind      registry.Kind
	path      string // "receivers[2]", for error messages
	id        string
	typ       string
	sessionID string
	settings  map[string]any
}

// entries lists f's components in build order: sessions first, since
// receivers and senders may use them.
func entries(f *config.File) []entry {
	var out []entry
	add := func(k registry.Kind, section string, cs []config.Component) {
		for i, c := range cs {
			out = append(out, entry{k, fmt.Sprintf("%s[%d]", section, i), c.ID, c.Type, c.SessionID, c.Settings})
		}
	}
	add(registry.KindSession, "sessions", f.Sessions)
	add(registry.KindSender, "senders", f.Senders)
	add(registry.KindReceiver, "receivers", f.Receivers)
	for _, name := range sortedKeys(f.Processors) {
		p := f.Processors[name]
		out = append(out, entry{registry.KindProcessor, "processors." + name, name, p.Type, "", p.Settings})
	}
	return out
}

// buildComponents makes b.comps hold exactly the components f declares.
// An existing component is kept when its configuration is unchanged and
// rebuild does not name it; any other existing one is closed before its
// replacement is built (it may hold a port the new one needs). Every build
// problem is reported.
func (b *Service) buildComponents(ctx context.Context, f *config.File, rebuild map[string]bool) error {
	declared := map[string]bool{}
	var errs []error
	all := entries(f)
	// A receiver or sender runs on its session: when the session is
	// rebuilt, so are they. Their fingerprint includes the session's.
	sessionPrint := map[string]string{}
	for _, e := range all {
		if e.kind == registry.KindSession {
			sessionPrint[e.id] = fingerprint([]any{e.typ, e.settings})
		}
	}
	for _, e := range all {
		k := key(e.kind, e.id)
		declared[k] = true
		fp := fingerprint([]any{e.typ, e.sessionID, sessionPrint[e.sessionID], e.settings})
		if old, ok := b.comps[k]; ok {
			if old.print == fp && !rebuild[k] {
				continue
			}
			b.closeComponent(ctx, k)
		}
		v, err := b.build(ctx, e)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s (%s %q): %w", e.path, e.kind, e.id, err))
			continue
		}
		b.comps[k] = &component{kind: e.kind, id: e.id, print: fp, value: v}
	}
	for k := range b.comps {
		if !declared[k] {
			b.closeComponent(ctx, k)
		}
	}
	return errors.Join(errs...)
}

func (b *Service) closeComponent(ctx context.Context, k string) {
	if err := closeValue(ctx, b.comps[k].value); err != nil {
		b.log.Warn("closing component failed", "component", k, "err", err)
	}
	delete(b.comps, k)
}

// build decodes e's settings and builds it with its factory.
func (b *Service) build(ctx context.Context, e entry) (any, error) {
	reg := b.opts.Registry
	cfg, err := reg.Decode(e.kind, e.typ, e.settings)
	if err != nil {
		return nil, fault.ErrInvalidConfig.WithMessage(err.Error())
	}
	d := b.deps(e.id)
	if e.kind == registry.KindReceiver {
		d.MaxInFlight = receiverInFlight(b.file, e.id)
	}
	if e.sessionID != "" {
		c, ok := b.comps[key(registry.KindSession, e.sessionID)]
		if !ok {
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("session_id %q not found in sessions", e.sessionID))
		}
		d.Session = c.value.(ports.Session)
	}
	switch e.kind {
	case registry.KindSession:
		f, _ := reg.Session(e.typ)
		return f.Build(ctx, cfg, d)
	case registry.KindSender:
		f, _ := reg.Sender(e.typ)
		return f.Build(ctx, cfg, d)
	case registry.KindReceiver:
		f, _ := reg.Receiver(e.typ)
		return f.Build(ctx, cfg, d)
	case registry.KindProcessor:
		f, _ := reg.Processor(e.typ)
		return f.Build(ctx, cfg, d)
	}
	return nil, fault.ErrInvalidConfig.WithMessage("unknown component kind " + string(e.kind))
}

// startSessions connects every session that is not connected yet.
func (b *Service) startSessions(ctx context.Context) error {
	var errs []error
	for k, c := range b.comps {
		s, ok := c.value.(ports.Session)
		if !ok || c.kind != registry.KindSession || c.started {
			continue
		}
		err := s.Start(ctx)
		if err != nil && !fault.IsRecoverable(err) {
			errs = append(errs, fmt.Errorf("%s: %w", k, err))
			continue
		}
		if err != nil {
			// The broker is down or unreachable for now: the session keeps
			// reconnecting on its own, and readiness says it is not connected.
			b.log.Warn("session not connected yet; it keeps trying", "session", c.id, "err", err)
		}
		c.started = true
	}
	return errors.Join(errs...)
}

// receiverInFlight is the effective max_in_flight of the route that id
// feeds, or 0.
func receiverInFlight(f *config.File, id string) int {
	for i := range f.Routes {
		if f.Routes[i].ReceiverID == id {
			return f.Routes[i].RuntimePolicy().MaxInFlight
		}
	}
	return 0
}
