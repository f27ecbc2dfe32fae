package httpapi

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// ConfigPreviewer is an optional extension of Backend. A backend that
// implements it lets the validate endpoint answer, for a valid document,
// how it differs from the running configuration.
type ConfigPreviewer interface {
	// PreviewConfig returns the configuration yaml would run, redacted
	// the way Backend.Config redacts the running one, or an error when
	// the document is not valid.
	PreviewConfig(ctx context.Context, yaml []byte) (map[string]any, error)
}

// ConfigChange is one setting that differs between the running
// configuration and a proposed one. Before is absent for an added
// setting, After for a removed one. Secrets are redacted on both sides,
// so a changed secret shows no difference.
type ConfigChange struct {
	Path   string `json:"path"`
	Before any    `json:"before,omitempty"`
	After  any    `json:"after,omitempty"`
}

// ReloadPlan is what a reload with a proposed document would change.
type ReloadPlan struct {
	// RoutesAdded, RoutesRemoved and RoutesChanged name routes by ID
	// whose own entry differs; a route whose receiver or sender changed
	// shows in Changes under that component.
	RoutesAdded   []string `json:"routes_added"`
	RoutesRemoved []string `json:"routes_removed"`
	RoutesChanged []string `json:"routes_changed"`
	// RoutesAffected names routes whose own entry is the same but that
	// use a receiver, binding, sender or processor that changes.
	RoutesAffected []string       `json:"routes_affected"`
	Changes        []ConfigChange `json:"changes"`
}

// planReload compares the running configuration with the proposed one.
func planReload(running, proposed map[string]any) ReloadPlan {
	p := ReloadPlan{RoutesAdded: []string{}, RoutesRemoved: []string{}, RoutesChanged: []string{},
		RoutesAffected: []string{}, Changes: []ConfigChange{}}
	run, prop := normalize(running), normalize(proposed)
	diffValue("", run, prop, &p.Changes)
	for _, c := range p.Changes {
		rest, ok := strings.CutPrefix(c.Path, "routes[")
		if !ok {
			continue
		}
		id, tail, _ := strings.Cut(rest, "]")
		switch {
		case tail == "" && c.Before == nil:
			p.RoutesAdded = append(p.RoutesAdded, id)
		case tail == "" && c.After == nil:
			p.RoutesRemoved = append(p.RoutesRemoved, id)
		case !slices.Contains(p.RoutesChanged, id):
			p.RoutesChanged = append(p.RoutesChanged, id)
		}
	}
	p.RoutesAffected = affectedRoutes(p, prop)
	return p
}

// affectedRoutes lists the routes of the proposed configuration that
// neither are added nor change themselves but use a component that
// changes: their receiver, a processor, a binding, or a binding's sender.
func affectedRoutes(p ReloadPlan, proposed any) []string {
	changed := map[string]map[string]bool{"receivers": {}, "senders": {}, "bindings": {}, "processors": {}}
	for _, c := range p.Changes {
		for section, set := range changed {
			if rest, ok := strings.CutPrefix(c.Path, section+"["); ok {
				id, _, _ := strings.Cut(rest, "]")
				set[id] = true
			} else if rest, ok := strings.CutPrefix(c.Path, section+"."); ok {
				id, _, _ := strings.Cut(rest, ".")
				set[id] = true
			}
		}
	}
	root, _ := proposed.(map[string]any)
	if bl, ok := byID(root["bindings"]); ok {
		for _, id := range bl.order {
			b, _ := bl.items[id].(map[string]any)
			if sid, _ := b["sender_id"].(string); changed["senders"][sid] {
				changed["bindings"][id] = true
			}
		}
	}
	out := []string{}
	rl, ok := byID(root["routes"])
	if !ok {
		return out
	}
	for _, id := range rl.order {
		if slices.Contains(p.RoutesAdded, id) || slices.Contains(p.RoutesChanged, id) {
			continue
		}
		r, _ := rl.items[id].(map[string]any)
		recv, _ := r["receiver_id"].(string)
		hit := changed["receivers"][recv]
		for _, key := range []string{"bindings", "processors"} {
			list, _ := r[key].([]any)
			for _, v := range list {
				if name, _ := v.(string); changed[key][name] {
					hit = true
				}
			}
		}
		if hit {
			out = append(out, id)
		}
	}
	return out
}

// normalize round-trips v through JSON, so that both sides compare as
// plain maps, lists, strings, numbers and booleans.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

// diffValue appends the differences between a and b under path. Maps are
// compared key by key; lists whose elements all carry an "id" are
// compared element by element by id; other values as a whole.
func diffValue(path string, a, b any, out *[]ConfigChange) {
	if reflect.DeepEqual(a, b) {
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := make([]string, 0, len(am)+len(bm))
		for k := range am {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			diffValue(join(path, k), am[k], bm[k], out)
		}
		return
	}
	al, aok := byID(a)
	bl, bok := byID(b)
	if aok && bok {
		ids := make([]string, 0, len(al.order)+len(bl.order))
		ids = append(ids, al.order...)
		for _, id := range bl.order {
			if _, ok := al.items[id]; !ok {
				ids = append(ids, id)
			}
		}
		for _, id := range ids {
			diffValue(path+"["+id+"]", al.items[id], bl.items[id], out)
		}
		return
	}
	*out = append(*out, ConfigChange{Path: path, Before: a, After: b})
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

type idList struct {
	order []string
	items map[string]any
}

// byID indexes a list whose elements are maps with a unique string "id".
// A nil value counts as an empty list.
func byID(v any) (idList, bool) {
	l := idList{items: map[string]any{}}
	if v == nil {
		return l, true
	}
	list, ok := v.([]any)
	if !ok {
		return l, false
	}
	for _, el := range list {
		m, ok := el.(map[string]any)
		if !ok {
			return l, false
		}
		id, ok := m["id"].(string)
		if !ok || id == "" {
			return l, false
		}
		if _, dup := l.items[id]; dup {
			return l, false
		}
		l.order = append(l.order, id)
		l.items[id] = el
	}
	return l, true
}
