package routing

import (
	"unicode/utf8"

	"github.com/gobridge-oss/gobridge/core/jsontext"
)

// maxDepth is the deepest nesting of arrays and objects a payload may
// have; deeper documents count as malformed. It matches encoding/json.
const maxDepth = 10000

// jval locates one value extracted from a payload: payload[start:end] is
// the literal of a number or boolean, the complete text of an array or
// object, or the content of a string (without its quotes). plain is true
// for string content usable as it is (no escapes, valid UTF-8); other
// strings are decoded when evaluated. A jval holds no pointers, so
// recording it never makes the Input escape to the heap.
type jval struct {
	kind  vkind
	plain bool
	start int
	end   int
}

// scanner validates a JSON document in one pass and records the values at
// the paths of a pathTable. Subtrees no path enters are skipped without
// being decoded.
type scanner struct {
	b    []byte
	i    int
	vals []jval
}

// scanJSON scans b against the paths under root, writing results into
// vals (indexed by slot). It reports whether b is one well-formed JSON
// document; when it is not, vals must be ignored.
func scanJSON(b []byte, root *pnode, vals []jval) bool {
	s := scanner{b: b, vals: vals}
	if !s.walk(root, 0) {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

// walk reads the value at s.i, which n stands for. d is the number of
// containers enclosing the value.
func (s *scanner) walk(n *pnode, d int) bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	start := s.i
	var kind vkind
	switch s.b[s.i] {
	case '{':
		kind = kObj
		if len(n.kids) == 0 {
			if !s.skipContainer(d) {
				return false
			}
		} else if !s.object(n, d+1) {
			return false
		}
	case '[':
		kind = kArr
		if len(n.kids) == 0 {
			if !s.skipContainer(d) {
				return false
			}
		} else if !s.array(n, d+1) {
			return false
		}
	case '"':
		end, fl, ok := s.scanStr()
		if !ok {
			return false
		}
		if n.slot >= 0 {
			s.vals[n.slot] = jval{kind: kStr, plain: plainString(s.b[start+1:end], fl), start: start + 1, end: end}
		}
		return true
	case 't':
		kind = kBool
		if !s.lit("true") {
			return false
		}
	case 'f':
		kind = kBool
		if !s.lit("false") {
			return false
		}
	case 'n':
		kind = kNull
		if !s.lit("null") {
			return false
		}
	default:
		kind = kNum
		if !s.scanNum() {
			return false
		}
	}
	if n.slot >= 0 {
		s.vals[n.slot] = jval{kind: kind, start: start, end: s.i}
	}
	return true
}

// object walks the object at s.i, entering members that n has children
// for. d is the object's own depth.
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
		ks := s.i + 1
		ke, fl, ok := s.scanStr()
		if !ok {
			return false
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		if kid := memberKid(n, s.b[ks:ke], fl); kid != nil {
			kid.clear(s.vals)
			if !s.walk(kid, d) {
				return false
			}
		} else if !s.skipValue(d) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		c := s.b[s.i]
		s.i++
		if c == '}' {
			return true
		}
		if c != ',' {
			return false
		}
	}
}

// array walks the array at s.i, entering elements that n has children
// for. d is the array's own depth.
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
		if kid := n.indexKid(idx); kid != nil {
			if !s.walk(kid, d) {
				return false
			}
		} else if !s.skipValue(d) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		c := s.b[s.i]
		s.i++
		if c == ']' {
			return true
		}
		if c != ',' {
			return false
		}
	}
}

// memberKid finds n's child for a raw member name, decoding the name
// first when it holds escapes or invalid UTF-8.
func memberKid(n *pnode, key []byte, fl strFlags) *pnode {
	if plainString(key, fl) {
		return n.memberKid(key)
	}
	var buf [64]byte
	return n.memberKid(jsontext.AppendUnquoted(buf[:0], key))
}

// skipValue validates and skips the value at s.i. d is the number of
// containers enclosing it.
func (s *scanner) skipValue(d int) bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	if c := s.b[s.i]; c == '{' || c == '[' {
		return s.skipContainer(d)
	}
	return s.scalar()
}

// skipContainer validates and skips the array or object at s.i without
// recursion. Whether each open level is an object is kept in a bit stack.
func (s *scanner) skipContainer(d int) bool {
	var st bitStack
	level := 0
	b := s.b
	for {
		s.ws()
		if s.i >= len(b) {
			return false
		}
		if c := b[s.i]; c == '{' || c == '[' {
			if d+level >= maxDepth {
				return false
			}
			obj := c == '{'
			st.set(level, obj)
			level++
			s.i++
			s.ws()
			if s.i >= len(b) {
				return false
			}
			if (obj && b[s.i] == '}') || (!obj && b[s.i] == ']') {
				s.i++
				level--
			} else {
				if obj && !s.memberKey() {
					return false
				}
				continue
			}
		} else if !s.scalar() {
			return false
		}
		// A value ended: close containers until one continues.
		for {
			if level == 0 {
				return true
			}
			s.ws()
			if s.i >= len(b) {
				return false
			}
			obj := st.get(level - 1)
			c := b[s.i]
			s.i++
			if c == ',' {
				if obj && !s.memberKey() {
					return false
				}
				break
			}
			if (obj && c == '}') || (!obj && c == ']') {
				level--
				continue
			}
			return false
		}
	}
}

// memberKey reads `"name" :` at s.i.
func (s *scanner) memberKey() bool {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false
	}
	if _, _, ok := s.scanStr(); !ok {
		return false
	}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		return false
	}
	s.i++
	return true
}

// bitStack records, per open level, whether it is an object. The first 64
// levels need no memory; only hostile nesting allocates.
type bitStack struct {
	low  uint64
	high []uint64
}

func (b *bitStack) set(level int, v bool) {
	w, m := &b.low, uint64(1)<<(level&63)
	if level >= 64 {
		i := level/64 - 1
		for len(b.high) <= i {
			b.high = append(b.high, 0)
		}
		w = &b.high[i]
	}
	if v {
		*w |= m
	} else {
		*w &^= m
	}
}

func (b *bitStack) get(level int) bool {
	w := b.low
	if level >= 64 {
		w = b.high[level/64-1]
	}
	return w&(uint64(1)<<(level&63)) != 0
}

// plainString reports whether string content can be used as it is: no
// escapes, and valid UTF-8.
func plainString(content []byte, fl strFlags) bool {
	return fl&flEscape == 0 && (fl&flHigh == 0 || utf8.Valid(content))
}
