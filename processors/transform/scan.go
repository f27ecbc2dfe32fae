package transform

import "github.com/gobridge-oss/gobridge/core/jsontext"

// maxDepth is the deepest nesting of arrays and objects a payload may
// have; deeper documents are refused as encoding/json refuses them.
const maxDepth = 10000

// kind is the JSON type of a value found at a source path.
type kind uint8

const (
	kMissing kind = iota // nothing at that path
	kNull
	kBool
	kNum
	kStr
	kArr
	kObj
)

func (k kind) String() string {
	switch k {
	case kNull:
		return "null"
	case kBool:
		return "a boolean"
	case kNum:
		return "a number"
	case kStr:
		return "a string"
	case kArr:
		return "an array"
	case kObj:
		return "an object"
	}
	return "nothing"
}

// span locates a value in the payload: b[start:end] is its complete JSON
// text (quotes included for strings). dirty marks a string whose content
// holds escapes or non-ASCII bytes and so must be decoded before use.
type span struct {
	kind  kind
	dirty bool
	start int
	end   int
}

// scanner checks that a payload is one well-formed JSON document and, in
// the same pass, records the values found at the source paths.
type scanner struct {
	b       []byte
	i       int
	vals    []span
	members *[]member // when set, receives the members of the root object
}

// scan validates b and fills vals (indexed by slot) with the values at the
// paths under root. It reports whether b is valid and, when it is not, the
// offset where reading stopped. A repeated object member replaces what an
// earlier one recorded, as encoding/json does. When members is not nil,
// the members of a root object are appended to it.
func scan(b []byte, root *pnode, vals []span, members *[]member) (bool, int) {
	clear(vals)
	s := scanner{b: b, vals: vals, members: members}
	if !s.walk(root, 0) {
		return false, s.i
	}
	s.ws()
	return s.i == len(b), s.i
}

// walk reads the value at s.i. n is the trie node it stands for, nil when
// no source path goes through it. d counts the enclosing containers.
func (s *scanner) walk(n *pnode, d int) bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	start := s.i
	var k kind
	var ok, dirty bool
	switch s.b[s.i] {
	case '{':
		k, ok = kObj, s.object(n, d+1)
	case '[':
		k, ok = kArr, s.array(n, d+1)
	case '"':
		k = kStr
		dirty, ok = s.str()
	case 't':
		k, ok = kBool, s.lit("true")
	case 'f':
		k, ok = kBool, s.lit("false")
	case 'n':
		k, ok = kNull, s.lit("null")
	default:
		k, ok = kNum, s.num()
	}
	if ok && n != nil && n.slot >= 0 {
		s.vals[n.slot] = span{kind: k, dirty: dirty, start: start, end: s.i}
	}
	return ok
}

// object reads the object at s.i; d is its own depth.
func (s *scanner) object(n *pnode, d int) bool {
	if d > maxDepth {
		return false
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		ks := s.i
		dirty, ok := s.str()
		if !ok {
			return false
		}
		ke := s.i
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		var kid *pnode
		if n != nil && len(n.kids) > 0 {
			kid = memberOf(n, s.b[ks+1:ke-1], dirty)
			if kid != nil {
				kid.forget(s.vals)
			}
		}
		vs := s.i
		if !s.walk(kid, d) {
			return false
		}
		if d == 1 && s.members != nil {
			*s.members = append(*s.members, member{ks: ks, ke: ke, vs: vs, ve: s.i, dirty: dirty})
		}
		if closed, ok := s.sep('}'); !ok || closed {
			return ok
		}
	}
}

// array reads the array at s.i; d is its own depth.
func (s *scanner) array(n *pnode, d int) bool {
	if d > maxDepth {
		return false
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for idx := 0; ; idx++ {
		var kid *pnode
		if n != nil && len(n.kids) > 0 {
			kid = n.element(idx)
		}
		if !s.walk(kid, d) {
			return false
		}
		if closed, ok := s.sep(']'); !ok || closed {
			return ok
		}
	}
}

// sep reads what follows a container element: a comma, or the closing
// byte close.
func (s *scanner) sep(close byte) (closed, ok bool) {
	s.ws()
	if s.i >= len(s.b) {
		return false, false
	}
	c := s.b[s.i]
	s.i++
	if c == close {
		return true, true
	}
	return false, c == ','
}

// memberOf finds n's child for the raw content of a member name.
func memberOf(n *pnode, raw []byte, dirty bool) *pnode {
	if !dirty {
		return n.member(raw)
	}
	var buf [64]byte
	return n.member(jsontext.AppendUnquoted(buf[:0], raw))
}

// forget clears every value recorded under n, so that a repeated member
// replaces an earlier one.
func (n *pnode) forget(vals []span) {
	if n.slot >= 0 {
		vals[n.slot] = span{}
	}
	for _, k := range n.kids {
		k.forget(vals)
	}
}
