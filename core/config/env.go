package config

import (
	"strconv"
	"strings"

	envprovider "github.com/knadh/koanf/providers/env/v2"
)

// topLevelKey reports whether an environment override addresses a
// configuration section. Variables with the prefix whose first segment is
// not a section are ignored, so unrelated GOBRIDGE_* variables (such as
// GOBRIDGE_REQUIRE_IT) do not break loading.
func topLevelKey(k string) bool {
	return sectionRank(k) < sectionRank("")
}

// readEnv returns the overrides among environ: variable name to value, for
// every variable with the prefix that addresses a configuration section.
func readEnv(prefix string, environ []string) (map[string]string, error) {
	p := envprovider.Provider("", envprovider.Opt{
		Prefix:      prefix,
		EnvironFunc: func() []string { return environ },
	})
	m, err := p.Read()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for name, v := range m {
		s, ok := v.(string)
		if !ok {
			continue
		}
		segs := envSegments(prefix, name)
		if len(segs) > 0 && topLevelKey(segs[0]) {
			out[name] = s
		}
	}
	return out, nil
}

// envSegments splits GOBRIDGE_ROUTES__0__POLICY__MAX_IN_FLIGHT into
// routes, 0, policy, max_in_flight.
func envSegments(prefix, name string) []string {
	rest := strings.TrimPrefix(name, prefix)
	if rest == "" {
		return nil
	}
	segs := strings.Split(strings.ToLower(rest), "__")
	for _, s := range segs {
		if s == "" {
			return nil
		}
	}
	return segs
}

// applyEnv writes each override into the raw tree, creating mappings on
// the way and indexing lists by number. A number one past the end of a list
// appends an element.
func applyEnv(root map[string]any, prefix string, env map[string]string, probs *problems) {
	for _, name := range sortedKeys(env) {
		segs := envSegments(prefix, name)
		val := text{raw: env[name], env: name}
		var node any = root
		path := ""
		for i, seg := range segs {
			last := i == len(segs)-1
			switch cur := node.(type) {
			case map[string]any:
				path = join(path, seg)
				if last {
					cur[seg] = val
					continue
				}
				next, ok := cur[seg]
				if !ok || next == nil {
					next = map[string]any{}
					if _, err := strconv.Atoi(segs[i+1]); err == nil {
						next = []any{}
					}
					cur[seg] = next
				}
				node = next
			case []any:
				n, err := strconv.Atoi(seg)
				if err != nil || n < 0 || n > len(cur) {
					probs.addf(path, "%s: %q is not an index of this list of %d elements", name, seg, len(cur))
					node = nil
					break
				}
				if n == len(cur) {
					cur = append(cur, map[string]any{})
					setList(root, envSegments(prefix, name)[:i], cur)
				}
				path = index(path, n)
				if last {
					cur[n] = val
					continue
				}
				if cur[n] == nil {
					cur[n] = map[string]any{}
				}
				node = cur[n]
			default:
				probs.addf(path, "%s: cannot set a key inside a scalar value", name)
				node = nil
			}
			if node == nil {
				break
			}
		}
	}
}

// setList stores a grown list back at the path segs of root.
func setList(root map[string]any, segs []string, list []any) {
	var node any = root
	for i, seg := range segs {
		last := i == len(segs)-1
		switch cur := node.(type) {
		case map[string]any:
			if last {
				cur[seg] = list
				return
			}
			node = cur[seg]
		case []any:
			n, _ := strconv.Atoi(seg)
			if last {
				cur[n] = list
				return
			}
			node = cur[n]
		}
	}
}
