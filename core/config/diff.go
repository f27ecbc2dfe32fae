package config

import (
	"fmt"
	"reflect"
	"slices"
)

// ReloadPlan says what a reload from one configuration to another changes.
type ReloadPlan struct {
	// Added are route IDs only in the new configuration, in its order.
	Added []string
	// Removed are route IDs only in the old configuration, in its order.
	Removed []string
	// Changed are route IDs in both whose route or anything it uses (its
	// receiver, bindings, senders, sessions or processors) differs.
	Changed []string
	// RestartRequired lists changes a reload stores but cannot apply to
	// the running process (the http block, stores, bridge, telemetry),
	// each with its reason.
	RestartRequired []Warning
}

// Empty reports whether the plan changes nothing.
func (p ReloadPlan) Empty() bool {
	return len(p.Added)+len(p.Removed)+len(p.Changed)+len(p.RestartRequired) == 0
}

// Diff compares two configurations for a reload. A nil File counts as an
// empty one.
func Diff(old, new *File) ReloadPlan {
	if old == nil {
		old = &File{}
	}
	if new == nil {
		new = &File{}
	}
	var p ReloadPlan
	oldRoutes := routesByID(old)
	newRoutes := routesByID(new)
	for i := range new.Routes {
		r := &new.Routes[i]
		o, ok := oldRoutes[r.ID]
		switch {
		case !ok:
			p.Added = append(p.Added, r.ID)
		case !reflect.DeepEqual(old.routeClosure(o), new.routeClosure(r)):
			p.Changed = append(p.Changed, r.ID)
		}
	}
	for _, r := range old.Routes {
		if _, ok := newRoutes[r.ID]; !ok {
			p.Removed = append(p.Removed, r.ID)
		}
	}
	p.RestartRequired = restartReasons(old, new)
	return p
}

func routesByID(f *File) map[string]*Route {
	m := make(map[string]*Route, len(f.Routes))
	for i := range f.Routes {
		m[f.Routes[i].ID] = &f.Routes[i]
	}
	return m
}

// closure is a route with everything it uses, resolved by ID.
type closure struct {
	Route      Route
	Receiver   *Component
	Bindings   []*Binding
	Senders    []*Component
	Sessions   []*Component
	Processors []*Processor
}

// routeClosure gathers what r uses, so a change to any of it counts.
func (f *File) routeClosure(r *Route) closure {
	c := closure{Route: *r, Receiver: findComponent(f.Receivers, r.ReceiverID)}
	var sessions []string
	if c.Receiver != nil {
		sessions = append(sessions, c.Receiver.SessionID)
	}
	senders := []string{}
	for _, id := range r.Bindings {
		i := slices.IndexFunc(f.Bindings, func(b Binding) bool { return b.ID == id })
		if i < 0 {
			c.Bindings = append(c.Bindings, nil)
			continue
		}
		b := &f.Bindings[i]
		c.Bindings = append(c.Bindings, b)
		senders = append(senders, b.SenderID)
		sessions = append(sessions, b.SessionID)
	}
	if r.Session != nil {
		senders = append(senders, r.Session.SenderID)
		sessions = append(sessions, r.Session.SessionID)
	}
	for _, id := range senders {
		s := findComponent(f.Senders, id)
		c.Senders = append(c.Senders, s)
		if s != nil {
			sessions = append(sessions, s.SessionID)
		}
	}
	for _, id := range sessions {
		if id != "" {
			c.Sessions = append(c.Sessions, findComponent(f.Sessions, id))
		}
	}
	for _, name := range r.Processors {
		var p *Processor
		if v, ok := f.Processors[name]; ok {
			p = &v
		}
		c.Processors = append(c.Processors, p)
	}
	return c
}

func findComponent(cs []Component, id string) *Component {
	i := slices.IndexFunc(cs, func(c Component) bool { return c.ID == id })
	if i < 0 {
		return nil
	}
	return &cs[i]
}

// restartReasons lists the changed settings that only a restart applies.
// The API keys, their overlap and the posted-reference list are not among
// them: a reload applies them.
func restartReasons(old, new *File) []Warning {
	var ws []Warning
	add := func(path, format string, args ...any) {
		ws = append(ws, Warning{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	fields := func(section string, a, b any, why string) {
		va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
		for i := range va.NumField() {
			key := va.Type().Field(i).Tag.Get("yaml")
			if key == "" || reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
				continue
			}
			add(join(section, key), "%s", why)
		}
	}
	fields("bridge", old.Bridge, new.Bridge, "the bridge identity and shutdown settings are read at start; restart to apply")
	fields("stores", old.Stores, new.Stores, "stores are opened at start and shared by every route; restart to apply")
	fields("telemetry", old.Telemetry, new.Telemetry, "logging and metrics are set up at start; restart to apply")
	const httpWhy = "the admin and monitor listeners are bound at start; restart to apply"
	switch {
	case old.HTTP == nil && new.HTTP != nil:
		add("http", "an http block added by a reload starts no listeners; restart to apply")
	case old.HTTP != nil && new.HTTP == nil:
		add("http", "the running listeners keep serving after the http block is removed; restart to apply")
	case old.HTTP != nil:
		o, n := *old.HTTP, *new.HTTP
		o.AdminAPIKey, o.MonitorAPIKey, o.APIKeyOverlap = n.AdminAPIKey, n.MonitorAPIKey, n.APIKeyOverlap
		o.PostedConfigRefs = n.PostedConfigRefs
		fields("http", o, n, httpWhy)
	}
	return ws
}
