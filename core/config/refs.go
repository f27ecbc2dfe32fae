package config

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// WithAllowedRefs restricts the ${env:} and ${file:} references a document
// may hold to those in allowed, each written "env:NAME" or "file:/path" as
// in http.posted_config_refs. Any other reference is a Problem that names
// it, and nothing is read for it; an empty list refuses every reference.
// Use it for documents that did not come from the operator's own file,
// such as one posted to the admin API.
func WithAllowedRefs(allowed []string) Option {
	return func(o *options) {
		o.restrictRefs = true
		o.allowedRefs = map[string]bool{}
		for _, a := range allowed {
			o.allowedRefs[a] = true
		}
	}
}

// refAllowed reports whether the reference kind:name may be resolved.
func (o *options) refAllowed(kind, name string) bool {
	return !o.restrictRefs || o.allowedRefs[kind+":"+name]
}

// validRefName reports whether s is an entry of http.posted_config_refs:
// env: followed by a variable name, or file: followed by an absolute path.
func validRefName(s string) bool {
	kind, name, ok := strings.Cut(s, ":")
	if !ok || name == "" || strings.ContainsAny(name, "}\n") {
		return false
	}
	switch kind {
	case "env":
		return !strings.ContainsAny(name, "= \t")
	case "file":
		return strings.HasPrefix(name, "/")
	}
	return false
}

// minScrubLength is the shortest resolved value Scrub hides: shorter ones
// (a port, a flag) are no secret, and hiding them would garble messages.
const minScrubLength = 3

// Scrub replaces, in s, every value that a ${env:} or ${file:} reference
// of f resolved to (as written, quoted, JSON-escaped, and line by line for
// a value of several lines) with "<redacted>". The bridge runs it over
// messages that may quote a value, such as errors from building a
// component.
func (f *File) Scrub(s string) string {
	if f == nil {
		return s
	}
	return scrub(f.secretValues, s)
}

// scrub hides values in s, the longest form first.
func scrub(values []string, s string) string {
	if len(values) == 0 || s == "" {
		return s
	}
	var forms []string
	add := func(v string) {
		if len(strings.TrimSpace(v)) >= minScrubLength {
			forms = append(forms, v)
		}
	}
	for _, v := range values {
		add(v)
		add(strings.TrimSpace(v))
		q := strconv.Quote(v)
		add(q[1 : len(q)-1])
		if j, err := json.Marshal(v); err == nil {
			add(string(j[1 : len(j)-1]))
		}
		for line := range strings.Lines(v) {
			add(strings.TrimSpace(line))
		}
	}
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	for _, form := range slices.Compact(forms) {
		s = strings.ReplaceAll(s, form, RedactedValue)
	}
	return s
}

// scrubProblems hides values in each problem's message.
func scrubProblems(values []string, ps []Problem) {
	for i := range ps {
		ps[i].Message = scrub(values, ps[i].Message)
	}
}
