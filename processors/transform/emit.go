package transform

import "github.com/gobridge-oss/gobridge/core/jsontext"

// Where the output value of a mapping comes from.
const (
	fromNone    uint8 = iota // the mapping writes nothing
	fromPayload              // a span of the payload, copied as it is
	fromScratch              // a converted value in state.scratch
	fromDefault              // the mapping's default
)

// result is the output value of one mapping.
type result struct {
	from       uint8
	start, end int
}

// member is one member of an object being merged.
type member struct {
	ks, ke, vs, ve int    // key and value, start and end, in the payload
	dirty          bool   // the key needs decoding
	drop           bool   // an earlier duplicate of a member that appears again
	kid            *tnode // target node of this member's name, or nil
}

// value returns the JSON text the mapping of leaf n writes.
func (st *state) value(n *tnode) []byte {
	r := st.results[n.mapping]
	switch r.from {
	case fromPayload:
		return st.payload[r.start:r.end]
	case fromScratch:
		return st.scratch[r.start:r.end]
	default:
		return st.c.maps[n.mapping].def
	}
}

// markWritten records, for every target node, whether some mapping below
// it writes a value.
func (st *state) markWritten() {
	clear(st.has)
	for i, r := range st.results {
		if r.from == fromNone {
			continue
		}
		for n := st.c.maps[i].target; n != nil && !st.has[n.id]; n = n.parent {
			st.has[n.id] = true
		}
	}
}

// fresh appends a new object holding the written targets under n.
func (st *state) fresh(dst []byte, n *tnode) []byte {
	dst = append(dst, '{')
	first := true
	for _, k := range n.kids {
		if !st.has[k.id] {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, k.quoted...)
		if k.mapping >= 0 {
			dst = append(dst, st.value(k)...)
		} else {
			dst = st.fresh(dst, k)
		}
	}
	return append(dst, '}')
}

// merge appends the object whose members are st.members[base:] with the
// targets under n written on top of it. Members are kept in their order;
// new members follow them. Of a repeated member name that a target
// concerns, only the last occurrence (the one JSON readers keep) remains.
func (st *state) merge(dst []byte, base int, n *tnode) ([]byte, error) {
	for j := len(st.members) - 1; j >= base; j-- {
		m := &st.members[j]
		m.kid = tmember(n, st.payload[m.ks+1:m.ke-1], m.dirty)
		if m.kid == nil {
			continue
		}
		if st.seen[m.kid.id] {
			m.drop = true
		}
		st.seen[m.kid.id] = true
	}
	dst = append(dst, '{')
	first := true
	sep := func() {
		if !first {
			dst = append(dst, ',')
		}
		first = false
	}
	var err error
	for j := base; j < len(st.members) && err == nil; j++ {
		m := st.members[j]
		switch {
		case m.drop:
		case m.kid == nil || !st.has[m.kid.id]:
			sep()
			dst = append(dst, st.payload[m.ks:m.ve]...)
		case m.kid.mapping >= 0:
			sep()
			dst = append(dst, m.kid.quoted...)
			dst = append(dst, st.value(m.kid)...)
		case st.payload[m.vs] == '{':
			sep()
			dst = append(dst, m.kid.quoted...)
			nested := len(st.members)
			st.readMembers(m.vs)
			dst, err = st.merge(dst, nested, m.kid)
		case st.payload[m.vs] == 'n': // null: replaced by a new object
			sep()
			dst = append(dst, m.kid.quoted...)
			dst = st.fresh(dst, m.kid)
		default: // a scalar or array stands where an object is needed
			if err = st.blocked(m.kid, st.payload[m.vs:m.ve]); err == nil {
				sep()
				dst = append(dst, st.payload[m.ks:m.ve]...)
			}
		}
	}
	for _, k := range n.kids {
		if err == nil && !st.seen[k.id] && st.has[k.id] {
			sep()
			dst = append(dst, k.quoted...)
			if k.mapping >= 0 {
				dst = append(dst, st.value(k)...)
			} else {
				dst = st.fresh(dst, k)
			}
		}
		st.seen[k.id] = false
	}
	st.members = st.members[:base]
	return append(dst, '}'), err
}

// blocked handles the mappings under n, whose targets cannot be written
// because the payload holds raw, not an object, at n. It returns the error
// of the first one that must not be skipped.
func (st *state) blocked(n *tnode, raw []byte) error {
	if n.mapping >= 0 {
		if st.results[n.mapping].from == fromNone {
			return nil
		}
		cm := st.c.maps[n.mapping]
		if cm.required || st.t.failOnError {
			return st.t.mappingError(n.mapping, "target is blocked by "+kindOf(raw).String()+" where an object is needed")
		}
		st.results[n.mapping].from = fromNone
		st.skip(n.mapping, "target blocked")
		return nil
	}
	for _, k := range n.kids {
		if err := st.blocked(k, raw); err != nil {
			return err
		}
	}
	return nil
}

// readMembers appends the members of the object at start to st.members.
func (st *state) readMembers(start int) {
	s := scanner{b: st.payload, i: start + 1}
	s.ws()
	if s.b[s.i] == '}' {
		return
	}
	for {
		s.ws()
		ks := s.i
		dirty, _ := s.str()
		ke := s.i
		s.ws()
		s.i++ // the colon
		s.ws()
		vs := s.i
		s.i = skipValid(s.b, vs)
		st.members = append(st.members, member{ks: ks, ke: ke, vs: vs, ve: s.i, dirty: dirty})
		if closed, _ := s.sep('}'); closed {
			return
		}
	}
}

// tmember finds n's child for the raw content of a member name.
func tmember(n *tnode, raw []byte, dirty bool) *tnode {
	if len(n.kids) == 0 {
		return nil
	}
	var buf [64]byte
	key := raw
	if dirty {
		key = jsontext.AppendUnquoted(buf[:0], raw)
	}
	for _, k := range n.kids {
		if k.key == string(key) {
			return k
		}
	}
	return nil
}

// kindOf returns the kind of the valid JSON value raw.
func kindOf(raw []byte) kind {
	switch raw[0] {
	case '{':
		return kObj
	case '[':
		return kArr
	case '"':
		return kStr
	case 't', 'f':
		return kBool
	case 'n':
		return kNull
	}
	return kNum
}
