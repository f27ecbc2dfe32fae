package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Problem is one mistake in a configuration, at a path such as
// "routes[2].policy.backoff.multiplier".
type Problem struct {
	// Path locates the value; empty for the file as a whole.
	Path string
	// Message says what is wrong. It never contains a secret's value.
	Message string
}

// Error returns "path: message", or the message alone when Path is empty.
func (p Problem) Error() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// Problems is every mistake found in one pass. Load, Parse and Validate
// return it as a *Problems error; errors.As finds it with a target of type
// *Problems or Problems.
type Problems []Problem

// As lets errors.As fill a Problems target from a *Problems error.
func (ps *Problems) As(target any) bool {
	t, ok := target.(*Problems)
	if ok && ps != nil {
		*t = *ps
	}
	return ok && ps != nil
}

// Error lists every problem, one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Warning is a valid but risky setting.
type Warning struct {
	// Path locates the setting.
	Path string
	// Message explains the risk.
	Message string
}

// String returns "path: message".
func (w Warning) String() string { return w.Path + ": " + w.Message }

// sectionRank orders top-level keys as they appear in File.
func sectionRank(key string) int {
	keys := []string{"bridge", "receivers", "senders", "sessions", "bindings", "routes",
		"processors", "stores", "http", "telemetry"}
	if i := slices.Index(keys, key); i >= 0 {
		return i
	}
	return len(keys)
}

// pathHead splits a path into its top-level key and the index that follows
// it, if any: "routes[2].id" gives ("routes", 2).
func pathHead(p string) (string, int) {
	end := strings.IndexAny(p, ".[")
	if end < 0 {
		return p, -1
	}
	key := p[:end]
	if p[end] != '[' {
		return key, -1
	}
	closing := strings.IndexByte(p[end:], ']')
	if closing < 0 {
		return key, -1
	}
	n, err := strconv.Atoi(p[end+1 : end+closing])
	if err != nil {
		return key, -1
	}
	return key, n
}

// sortProblems orders problems by section in file order, then by list
// index, keeping the discovery order otherwise.
func sortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int { return comparePaths(a.Path, b.Path) })
}

// sortWarnings orders warnings like problems.
func sortWarnings(ws []Warning) {
	slices.SortStableFunc(ws, func(a, b Warning) int { return comparePaths(a.Path, b.Path) })
}

func comparePaths(a, b string) int {
	ka, ia := pathHead(a)
	kb, ib := pathHead(b)
	if c := sectionRank(ka) - sectionRank(kb); c != 0 {
		return c
	}
	return ia - ib
}

// problems collects problems under a path prefix.
type problems struct {
	list []Problem
}

// addf records a problem at path.
func (c *problems) addf(path, format string, args ...any) {
	c.list = append(c.list, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// err returns the sorted problems as an error, or nil when there are none.
func (c *problems) err() error {
	if len(c.list) == 0 {
		return nil
	}
	ps := slices.Clone(c.list)
	sortProblems(ps)
	out := Problems(ps)
	return &out
}

// join builds a child path: join("routes[0]", "id") is "routes[0].id".
func join(base, key string) string {
	if base == "" {
		return key
	}
	return base + "." + key
}

// index builds a list element path: index("routes", 2) is "routes[2]".
func index(base string, i int) string {
	return fmt.Sprintf("%s[%d]", base, i)
}

// JoinProblems merges the Problems of successive rounds over one document,
// such as a partial Parse (WithPartial) and then Validate, into one sorted
// *Problems, or nil when there are none. A later round's problem at a path
// an earlier round already reports, or below it, is dropped: it only
// repeats that the value did not decode. An error that is not Problems
// (a file that cannot be read) is returned as it is.
func JoinProblems(errs ...error) error {
	var all, earlier []Problem
	for _, err := range errs {
		if err == nil {
			continue
		}
		var ps Problems
		if !errors.As(err, &ps) {
			return err
		}
		for _, p := range ps {
			if !coveredBy(p.Path, earlier) {
				all = append(all, p)
			}
		}
		earlier = slices.Clone(all)
	}
	c := problems{list: all}
	return c.err()
}

// coveredBy reports whether path is, or lies below, the path of one of ps.
func coveredBy(path string, ps []Problem) bool {
	for _, p := range ps {
		if p.Path == "" || !strings.HasPrefix(path, p.Path) {
			continue
		}
		if rest := path[len(p.Path):]; rest == "" || rest[0] == '.' || rest[0] == '[' {
			return true
		}
	}
	return false
}
