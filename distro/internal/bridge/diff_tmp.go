package bridge

import (
	"slices"

	"github.com/gobridge-oss/gobridge/core/config"
)

// reloadPlan is what changed between two files (temporary until
// config.Diff lands).
type reloadPlan struct {
	Added, Removed, Changed []string
	RestartRequired         []config.Warning
}

func diffFiles(old, nf *config.File) reloadPlan {
	var p reloadPlan
	routePrint := func(f *config.File, r config.Route) string {
		var parts []any
		parts = append(parts, r)
		for _, c := range f.Receivers {
			if c.ID == r.ReceiverID {
				parts = append(parts, c)
			}
		}
		for _, bid := range r.Bindings {
			for _, bc := range f.Bindings {
				if bc.ID == bid {
					parts = append(parts, bc)
					for _, s := range f.Senders {
						if s.ID == bc.SenderID {
							parts = append(parts, s)
						}
					}
				}
			}
		}
		for _, name := range r.Processors {
			parts = append(parts, f.Processors[name])
		}
		return fingerprint(parts)
	}
	olds := map[string]string{}
	for _, r := range old.Routes {
		olds[r.ID] = routePrint(old, r)
	}
	for _, r := range nf.Routes {
		o, ok := olds[r.ID]
		switch {
		case !ok:
			p.Added = append(p.Added, r.ID)
		case o != routePrint(nf, r):
			p.Changed = append(p.Changed, r.ID)
		}
		delete(olds, r.ID)
	}
	for id := range olds {
		p.Removed = append(p.Removed, id)
	}
	slices.Sort(p.Removed)
	if fingerprint(old.Stores) != fingerprint(nf.Stores) {
		p.RestartRequired = append(p.RestartRequired, config.Warning{Path: "stores", Message: "store changes take effect after a restart"})
	}
	if fingerprint(old.HTTP) != fingerprint(nf.HTTP) {
		p.RestartRequired = append(p.RestartRequired, config.Warning{Path: "http", Message: "listener changes take effect after a restart"})
	}
	return p
}
