package config

import (
	"fmt"
	"slices"
	"strings"
)

// Check is an extra validator run by Validate after its own rules; the
// registry adds one that decodes every plugin's settings.
type Check func(f *File) []Problem

// ValidateOptions adjusts ValidateWith.
type ValidateOptions struct {
	// KnownProcessors are processor names registered in Go. A route may
	// list them although they are absent from the processors map.
	KnownProcessors []string

	// clusterPreview accepts the clustering keys that notSupportedYet
	// refuses, so that their own rules stay tested until clustering lands.
	clusterPreview bool
}

// Validate checks every rule of the configuration reference and returns
// the warnings, and, when anything is wrong, every problem at once as
// Problems. It accepts a File with or without defaults applied: a zero
// value counts as the default.
func (f *File) Validate(checks ...Check) ([]Warning, error) {
	return f.ValidateWith(ValidateOptions{}, checks...)
}

// ValidateWith is Validate with options.
func (f *File) ValidateWith(o ValidateOptions, checks ...Check) ([]Warning, error) {
	v := &validator{f: f, o: o, probs: &problems{}}
	v.bridge()
	v.ids = map[string]map[string]int{
		"receivers": v.components("receivers", f.Receivers),
		"senders":   v.components("senders", f.Senders),
		"sessions":  v.components("sessions", f.Sessions),
		"bindings":  v.bindings(),
	}
	v.componentSessions("receivers", f.Receivers)
	v.componentSessions("senders", f.Senders)
	v.componentSessions("sessions", nil)
	v.bindingRefs()
	v.routes()
	v.processors()
	v.stores()
	v.http()
	v.telemetry()
	v.clustered()
	v.rollout()
	v.sessionsAgree()
	if !o.clusterPreview {
		v.notSupportedYet()
	}
	for _, c := range checks {
		if c != nil {
			v.probs.list = append(v.probs.list, c(f)...)
		}
	}
	v.warns = append(v.warns, f.loadWarnings...)
	sortWarnings(v.warns)
	scrubProblems(f.secretValues, v.probs.list)
	for i := range v.warns {
		v.warns[i].Message = scrub(f.secretValues, v.warns[i].Message)
	}
	return v.warns, v.probs.err()
}

// validator carries one Validate run.
type validator struct {
	f     *File
	o     ValidateOptions
	probs *problems
	warns []Warning
	ids   map[string]map[string]int // section -> id -> position
}

func (v *validator) addf(path, format string, args ...any) { v.probs.addf(path, format, args...) }

func (v *validator) warnf(path, format string, args ...any) {
	v.warns = append(v.warns, Warning{Path: path, Message: fmt.Sprintf(format, args...)})
}

// ref checks that id names an entry of section.
func (v *validator) ref(path, key, id, section string, required bool) bool {
	if id == "" {
		if required {
			v.addf(join(path, key), "%s is required", key)
		}
		return false
	}
	if _, ok := v.ids[section][id]; !ok {
		v.addf(join(path, key), "%s %q not found in %s", key, id, section)
		return false
	}
	return true
}

// oneOf reports a value outside allowed; empty values pass.
func (v *validator) oneOf(path, val string, allowed ...string) bool {
	if val == "" || slices.Contains(allowed, val) {
		return true
	}
	v.addf(path, "%q is invalid; must be one of: %s", val, strings.Join(allowed, ", "))
	return false
}

func (v *validator) bridge() {
	b := v.f.Bridge
	if b.ID == "" {
		v.addf("bridge.id", "bridge.id is required")
	}
	if b.Deployment != "" && b.Deployment != DeploymentStandalone && b.Deployment != DeploymentClustered {
		v.addf("bridge.deployment", "must be one of: standalone, clustered")
	}
	if b.ShutdownTimeout < 0 {
		v.addf("bridge.shutdown_timeout", "must not be negative, got %s", b.ShutdownTimeout)
	}
}

// components checks the IDs and types of one section and returns its IDs.
func (v *validator) components(section string, cs []Component) map[string]int {
	ids := map[string]int{}
	for i, c := range cs {
		path := index(section, i)
		v.uniqueID(path, c.ID, ids, i)
		if c.Type == "" {
			v.addf(join(path, "type"), "type is required")
		}
	}
	return ids
}

func (v *validator) uniqueID(path, id string, ids map[string]int, i int) {
	switch _, dup := ids[id]; {
	case id == "":
		v.addf(join(path, "id"), "id is required")
	case dup:
		v.addf(join(path, "id"), "duplicate id %q", id)
	default:
		ids[id] = i
	}
}

// componentSessions checks the optional session_id references; sessions
// themselves may not name a session.
func (v *validator) componentSessions(section string, cs []Component) {
	if section == "sessions" {
		for i, s := range v.f.Sessions {
			if s.SessionID != "" {
				v.addf(join(index(section, i), "session_id"), "a session cannot run on another session")
			}
		}
		return
	}
	for i, c := range cs {
		v.ref(index(section, i), "session_id", c.SessionID, "sessions", false)
	}
}

func (v *validator) bindings() map[string]int {
	ids := map[string]int{}
	for i, b := range v.f.Bindings {
		v.uniqueID(index("bindings", i), b.ID, ids, i)
	}
	return ids
}

// bindingRefs runs after every section's IDs are known.
func (v *validator) bindingRefs() {
	for i, b := range v.f.Bindings {
		path := index("bindings", i)
		if v.ref(path, "sender_id", b.SenderID, "senders", true) && b.SessionID != "" {
			s := v.f.Senders[v.ids["senders"][b.SenderID]]
			if s.SessionID != "" && s.SessionID != b.SessionID {
				v.addf(join(path, "session_id"), "session_id %q differs from the session %q of sender %q", b.SessionID, s.SessionID, b.SenderID)
			}
		}
		v.ref(path, "session_id", b.SessionID, "sessions", false)
		if b.DeliverAfter < 0 {
			v.addf(join(path, "deliver_after"), "must not be negative, got %s", b.DeliverAfter)
		}
	}
}

// processors checks the declared processors and the routes' references.
func (v *validator) processors() {
	for _, name := range sortedKeys(v.f.Processors) {
		if v.f.Processors[name].Type == "" {
			v.addf(join(join("processors", name), "type"), "type is required")
		}
	}
	for i, r := range v.f.Routes {
		seen := map[string]bool{}
		for j, name := range r.Processors {
			path := index(join(index("routes", i), "processors"), j)
			_, declared := v.f.Processors[name]
			switch {
			case name == "":
				v.addf(path, "processor name is required")
			case !declared && !slices.Contains(v.o.KnownProcessors, name):
				v.addf(path, "processor %q not found in processors", name)
			case seen[name]:
				v.addf(path, "duplicate processor %q", name)
			}
			seen[name] = true
		}
	}
}

func (v *validator) telemetry() {
	t := v.f.Telemetry
	v.oneOf("telemetry.log_level", t.LogLevel, "debug", "info", "warn", "error")
	v.oneOf("telemetry.log_format", t.LogFormat, "text", "json")
	if t.Tracing != nil && t.Tracing.Type == "" {
		v.addf("telemetry.tracing.type", "type is required")
	}
}

// stores checks that every configured store names a type.
func (v *validator) stores() {
	s := v.f.Stores
	for _, st := range []struct {
		key   string
		store *Store
	}{{"outbox", s.Outbox}, {"dlq", s.DLQ}, {"lease", s.Lease}, {"managed_subscriptions", s.ManagedSubscriptions}} {
		if st.store != nil && st.store.Type == "" {
			v.addf(join(join("stores", st.key), "type"), "type is required")
		}
	}
}
