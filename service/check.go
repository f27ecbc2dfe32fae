package service

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// Validate checks f with every rule of the configuration reference, plus
// what only the distro knows: that each component's type is bundled and
// its settings decode, and that no receiver feeds two routes. goProcessors
// names processors constructed in Go that routes may list.
func Validate(f *config.File, reg *registry.Registry, goProcessors []string) ([]config.Warning, error) {
	warns, err := f.ValidateWith(config.ValidateOptions{KnownProcessors: goProcessors},
		SettingsCheck(reg), receiverUseCheck, AdmissionCheck(reg), brokerHealthCheck,
		func(f *config.File) []config.Problem { return tracingSupport(f, reg) })
	return append(warns, storeWarnings(f, reg)...), err
}

// storeWarnings warns, from each store factory's locality, about an
// outbox or DLQ that lives only as long as the process, and, in a
// clustered deployment, about a store the instances cannot all share.
func storeWarnings(f *config.File, reg *registry.Registry) []config.Warning {
	var out []config.Warning
	loc := func(st *config.Store) registry.Locality {
		if st == nil {
			return registry.LocalityUnknown
		}
		fac, ok := reg.Lookup(registry.KindStore, st.Type)
		if !ok {
			return registry.LocalityUnknown
		}
		return registry.LocalityOf(fac)
	}
	s := f.Stores
	if loc(s.Outbox) == registry.LocalityProcess {
		out = append(out, config.Warning{Path: "stores.outbox.type", Message: fmt.Sprintf(
			"a %s outbox lives only as long as the process: at stop the bridge delivers what it can within bridge.shutdown_timeout and the rest is lost; use a store that keeps it", s.Outbox.Type)})
	}
	if loc(s.DLQ) == registry.LocalityProcess {
		out = append(out, config.Warning{Path: "stores.dlq.type", Message: fmt.Sprintf(
			"a %s DLQ lives only as long as the process: every dead letter is lost at stop; use a store that keeps them", s.DLQ.Type)})
	}
	if f.Bridge.Deployment != config.DeploymentClustered {
		return out
	}
	for _, st := range []struct {
		key   string
		store *config.Store
	}{{"outbox", s.Outbox}, {"dlq", s.DLQ}, {"lease", s.Lease}, {"managed_subscriptions", s.ManagedSubscriptions}} {
		path := "stores." + st.key + ".type"
		switch loc(st.store) {
		case registry.LocalityProcess:
			out = append(out, config.Warning{Path: path, Message: fmt.Sprintf(
				"a %s store is local to one process; the instances of a clustered deployment do not share it", st.store.Type)})
		case registry.LocalityHost:
			out = append(out, config.Warning{Path: path, Message: fmt.Sprintf(
				"a %s store is shared only by the processes of one host; instances on other hosts cannot use it", st.store.Type)})
		}
	}
	return out
}

// SettingsCheck decodes every component's and store's settings with its
// factory, reporting an unknown type at the entry's type and a decoding
// problem at its settings.
func SettingsCheck(reg *registry.Registry) config.Check {
	return func(f *config.File) []config.Problem {
		var out []config.Problem
		check := func(k registry.Kind, path, typ string, settings map[string]any) {
			if typ == "" {
				return // the model's own rules report a missing type
			}
			if _, ok := reg.Lookup(k, typ); !ok {
				out = append(out, config.Problem{Path: path + ".type",
					Message: fmt.Sprintf("unknown %s type %q; this binary bundles: %s", k, typ, strings.Join(reg.Types(k), ", "))})
				return
			}
			if _, err := reg.Decode(k, typ, settings); err != nil {
				out = append(out, config.Problem{Path: path + ".settings", Message: err.Error()})
			}
		}
		for _, e := range entries(f) {
			check(e.kind, e.path, e.typ, e.settings)
		}
		for role, s := range map[string]*config.Store{"outbox": f.Stores.Outbox, "dlq": f.Stores.DLQ, "lease": f.Stores.Lease} {
			if s != nil {
				check(registry.KindStore, "stores."+role, s.Type, s.Settings)
			}
		}
		if t := f.Telemetry.Tracing; t != nil && len(reg.Types(registry.KindTracer)) > 0 {
			check(registry.KindTracer, "telemetry.tracing", t.Type, t.Settings)
		}
		return out
	}
}

// receiverUseCheck refuses a receiver listed by two routes: a receiver's
// deliveries go to exactly one route.
func receiverUseCheck(f *config.File) []config.Problem {
	users := map[string][]int{}
	for i, r := range f.Routes {
		if r.ReceiverID != "" {
			users[r.ReceiverID] = append(users[r.ReceiverID], i)
		}
	}
	var out []config.Problem
	for _, id := range slices.Sorted(maps.Keys(users)) {
		idx := users[id]
		for _, i := range idx[1:] {
			out = append(out, config.Problem{Path: fmt.Sprintf("routes[%d].receiver_id", i),
				Message: fmt.Sprintf("receiver %q already feeds route %q; a receiver feeds one route", id, f.Routes[idx[0]].ID)})
		}
	}
	return out
}

// AdmissionCheck asks each receiver factory that implements
// registry.Admitter whether it admits the route its receiver feeds.
func AdmissionCheck(reg *registry.Registry) config.Check {
	return func(f *config.File) []config.Problem {
		var out []config.Problem
		for i, r := range f.Routes {
			rc, ok := componentByID(f.Receivers, r.ReceiverID)
			if !ok {
				continue
			}
			fac, ok := reg.Receiver(rc.Type)
			adm, isAdm := fac.(registry.Admitter)
			if !ok || !isAdm {
				continue
			}
			rcfg, err := fac.Decode(rc.Settings)
			if err != nil {
				continue // SettingsCheck reports it
			}
			var scfg any
			if sc, ok := componentByID(f.Sessions, rc.SessionID); ok {
				if sf, ok := reg.Session(sc.Type); ok {
					scfg, _ = sf.Decode(sc.Settings)
				}
			}
			mode := r.DeliveryMode
			if mode == "" {
				mode = config.DeliveryDirectHold
			}
			facts := registry.RouteFacts{RouteID: r.ID, DeliveryMode: mode, HasDLQ: f.Stores.DLQ != nil, AllowRetryDrop: r.Policy.AllowRetryDrop,
				Clustered: f.Bridge.Deployment == config.DeploymentClustered,
				Exclusive: r.Session != nil && (r.Session.ConnectAfterLease == nil || *r.Session.ConnectAfterLease)}
			if err := adm.Admit(rcfg, scfg, facts); err != nil {
				out = append(out, admissionProblems(err, fmt.Sprintf("routes[%d].delivery_mode", i), receiverPath(f, rc.ID))...)
			}
		}
		return out
	}
}

// admissionProblems turns an admission error into problems: a
// registry.SettingProblem at the receiver setting it names, anything else
// at the route's fallback path.
func admissionProblems(err error, fallback, receiver string) []config.Problem {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var out, other []config.Problem
	for _, e := range errs {
		var sp *registry.SettingProblem
		if errors.As(e, &sp) {
			out = append(out, config.Problem{Path: receiver + ".settings." + sp.Path, Message: sp.Message})
			continue
		}
		other = append(other, config.Problem{Path: fallback, Message: e.Error()})
	}
	if len(other) > 0 {
		msgs := make([]string, len(other))
		for i, p := range other {
			msgs[i] = p.Message
		}
		out = append(out, config.Problem{Path: fallback, Message: strings.Join(msgs, "\n")})
	}
	return out
}

// receiverPath is the path of receiver id in f, e.g. "receivers[2]".
func receiverPath(f *config.File, id string) string {
	for i, c := range f.Receivers {
		if c.ID == id {
			return fmt.Sprintf("receivers[%d]", i)
		}
	}
	return "receivers"
}

// componentByID finds the component id in cs.
func componentByID(cs []config.Component, id string) (config.Component, bool) {
	for _, c := range cs {
		if c.ID == id {
			return c, true
		}
	}
	return config.Component{}, false
}
