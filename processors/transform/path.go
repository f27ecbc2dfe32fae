package transform

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxSegments bounds the depth of a source or target path.
const maxSegments = 128

// maxIndexDigits bounds the digits of an array index in a source path.
const maxIndexDigits = 9

// seg is one step of a source path: an object member name, and the array
// index the same step selects (-1 when the name is not a canonical index).
type seg struct {
	key string
	idx int
}

// parseSource parses a JSONPath such as $.a.b[0].c into its steps. "$"
// alone selects the whole document.
func parseSource(p string) ([]seg, error) {
	if p == "" {
		return nil, errors.New("is required")
	}
	if p[0] != '$' {
		return nil, fmt.Errorf("%q must start with $", p)
	}
	if !utf8.ValidString(p) {
		return nil, fmt.Errorf("%q is not valid UTF-8", p)
	}
	rest := p[1:]
	var segs []seg
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			name := rest[:end]
			switch {
			case name == "*" || strings.HasPrefix(rest, "."):
				return nil, fmt.Errorf("%q: wildcards and recursive descent are not supported", p)
			case name == "":
				return nil, fmt.Errorf("empty segment in %q", p)
			case strings.ContainsAny(name, "]'\""):
				return nil, fmt.Errorf("%q: unexpected character in segment %q", p, name)
			}
			segs = append(segs, seg{key: name, idx: index(name)})
			rest = rest[end:]
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("%q: unterminated [", p)
			}
			digits := rest[1:end]
			i := index(digits)
			if i < 0 {
				return nil, fmt.Errorf("%q: index [%s] is not a non-negative integer of at most %d digits without leading zeros", p, digits, maxIndexDigits)
			}
			segs = append(segs, seg{key: digits, idx: i})
			rest = rest[end+1:]
		default:
			return nil, fmt.Errorf("%q: expected . or [ after %q", p, p[:len(p)-len(rest)])
		}
		if len(segs) > maxSegments {
			return nil, fmt.Errorf("%q has more than %d segments", p, maxSegments)
		}
	}
	return segs, nil
}

// index returns the array index s spells, or -1 when s is not a canonical
// non-negative integer.
func index(s string) int {
	if s == "" || len(s) > maxIndexDigits || (s[0] == '0' && len(s) > 1) {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// parseTarget splits a dot-notation target into its member names.
func parseTarget(t string) ([]string, error) {
	switch {
	case t == "":
		return nil, errors.New("is required")
	case t[0] == '$':
		return nil, fmt.Errorf("%q is dot notation such as user.name, not a JSONPath", t)
	case strings.ContainsAny(t, "[]"):
		return nil, fmt.Errorf("%q: array indexes are not supported in targets", t)
	case !utf8.ValidString(t):
		return nil, fmt.Errorf("%q is not valid UTF-8", t)
	}
	keys := strings.Split(t, ".")
	for _, k := range keys {
		if k == "" {
			return nil, fmt.Errorf("empty segment in %q", t)
		}
	}
	if len(keys) > maxSegments {
		return nil, fmt.Errorf("%q has more than %d segments", t, maxSegments)
	}
	return keys, nil
}

// pnode is a node of the source trie; the root stands for the document.
type pnode struct {
	key  string
	idx  int
	slot int // result slot of the source path ending here, or -1
	kids []*pnode
}

func newPnode(key string, idx int) *pnode { return &pnode{key: key, idx: idx, slot: -1} }

// addSource registers a source path and returns its slot; equal paths
// share one.
func (c *compiled) addSource(segs []seg) int {
	n := c.sources
	for _, s := range segs {
		var next *pnode
		for _, k := range n.kids {
			if k.key == s.key {
				next = k
				break
			}
		}
		if next == nil {
			next = newPnode(s.key, s.idx)
			n.kids = append(n.kids, next)
		}
		n = next
	}
	if n.slot < 0 {
		n.slot = c.slots
		c.slots++
	}
	return n.slot
}

// member returns the child reached by the object member named key.
func (n *pnode) member(key []byte) *pnode {
	for _, k := range n.kids {
		if k.key == string(key) {
			return k
		}
	}
	return nil
}

// element returns the child reached by array element i.
func (n *pnode) element(i int) *pnode {
	for _, k := range n.kids {
		if k.idx == i {
			return k
		}
	}
	return nil
}

// tnode is a node of the target trie. A node is either a leaf written by
// one mapping or an object holding its children; the root is the output
// document.
type tnode struct {
	id      int
	parent  *tnode
	key     string
	quoted  []byte // "key": ready to copy
	mapping int    // index of the mapping writing this leaf, or -1
	kids    []*tnode
}

// addTarget registers the target of mapping i. Two mappings may not write
// the same field, nor one a field inside the other's.
func (c *compiled) addTarget(keys []string, i int) (*tnode, error) {
	n := c.targets
	for depth, k := range keys {
		if n.mapping >= 0 {
			return nil, fmt.Errorf("%q lies inside %q, the target of mappings[%d]",
				strings.Join(keys, "."), strings.Join(keys[:depth], "."), n.mapping)
		}
		var next *tnode
		for _, kid := range n.kids {
			if kid.key == k {
				next = kid
				break
			}
		}
		if next == nil {
			next = &tnode{id: c.nodes, parent: n, key: k, quoted: appendKey(nil, k), mapping: -1}
			c.nodes++
			c.keyLen += len(next.quoted)
			n.kids = append(n.kids, next)
		}
		n = next
	}
	switch {
	case n.mapping >= 0:
		return nil, fmt.Errorf("%q is also the target of mappings[%d]", strings.Join(keys, "."), n.mapping)
	case len(n.kids) > 0:
		return nil, fmt.Errorf("%q holds the targets of other mappings, for example mappings[%d]",
			strings.Join(keys, "."), firstMapping(n))
	}
	n.mapping = i
	return n, nil
}

// firstMapping returns the lowest mapping index under n.
func firstMapping(n *tnode) int {
	if n.mapping >= 0 {
		return n.mapping
	}
	best := -1
	for _, k := range n.kids {
		if m := firstMapping(k); best < 0 || m < best {
			best = m
		}
	}
	return best
}

// appendKey appends "key": to dst.
func appendKey(dst []byte, key string) []byte {
	dst = appendQuoted(dst, []byte(key))
	return append(dst, ':')
}
