package routing

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/gobridge-oss/gobridge/core/jsontext"
)

// Match reports whether every condition of m holds for the message of in.
// A nil Matcher matches everything. Match does not allocate when the
// conditions read only the subject and headers.
func (m *Matcher) Match(in *Input) bool {
	if m == nil {
		return true
	}
	for i := range m.conds {
		if !m.conds[i].eval(in, m.tab) {
			return false
		}
	}
	return true
}

// fval is a field value being tested.
type fval struct {
	kind    vkind // kMissing is never used; kOther is any unsupported header type
	meta    bool  // text from the subject or a header: may be read as a number
	isRaw   bool  // text or number literal lives in raw, not str
	b       bool
	numDone bool
	numOK   bool
	str     string
	raw     []byte // text, number literal, or JSON text of an array or object
	num     numView
	comp    any   // header array, object or unsupported value
	gnum    goNum // numeric header value (kNum with gnum.kind set)
}

// kOther marks a header value of a type the conditions cannot compare.
const kOther vkind = 255

func (c *cond) eval(in *Input, tab *pathTable) bool {
	var f fval
	switch c.field {
	case fieldSubject:
		if in.env == nil {
			return c.missing()
		}
		f = fval{kind: kStr, meta: true, str: in.env.Subject}
		return c.test(&f)
	case fieldHeader:
		if in.env == nil {
			return c.missing()
		}
		v, ok := in.env.Headers[c.key]
		if !ok {
			return c.missing()
		}
		f = fromAny(v, true)
		return c.test(&f)
	default:
		jv := in.lookup(tab, c.slot)
		if jv == nil {
			return c.missing()
		}
		f = fromJSON(in.payload, jv)
		return c.test(&f)
	}
}

// missing is the result of c on a missing field.
func (c *cond) missing() bool {
	return c.op == OpNe || (c.op == OpExists && !c.want)
}

// test evaluates c on a present field.
func (c *cond) test(f *fval) bool {
	switch c.op {
	case OpExists:
		return c.want
	case OpEq:
		return equal(&c.val, f)
	case OpNe:
		return !equal(&c.val, f)
	case OpIn:
		for i := range c.val.arr {
			if equal(&c.val.arr[i], f) {
				return true
			}
		}
		return false
	case OpPrefix, OpContains, OpRegex:
		if f.kind != kStr {
			return false
		}
		if f.isRaw {
			switch c.op {
			case OpPrefix:
				return bytes.HasPrefix(f.raw, c.val.bs)
			case OpContains:
				return bytes.Contains(f.raw, c.val.bs)
			}
			return c.re.Match(f.raw)
		}
		switch c.op {
		case OpPrefix:
			return strings.HasPrefix(f.str, c.val.s)
		case OpContains:
			return strings.Contains(f.str, c.val.s)
		}
		return c.re.MatchString(f.str)
	}
	if !f.number() {
		return false
	}
	r := f.cmp(&c.val)
	switch c.op {
	case OpGt:
		return r > 0
	case OpLt:
		return r < 0
	case OpGte:
		return r >= 0
	default: // OpLte
		return r <= 0
	}
}

// number reports whether f can be read as a number, computing its view
// once. Strings qualify only when they come from the subject or headers.
func (f *fval) number() bool {
	if !f.numDone {
		f.numDone = true
		if f.gnum.kind != gnNone {
			var buf numBuf
			_, f.num, f.numOK = f.gnum.format(&buf)
		} else if f.kind == kNum || (f.kind == kStr && f.meta) {
			if f.isRaw {
				f.num, f.numOK = parseNum(f.raw)
			} else {
				f.num, f.numOK = parseNum(f.str)
			}
		}
	}
	return f.numOK
}

// cmp compares the number f (number must have returned true) with w.
func (f *fval) cmp(w *cval) int {
	if f.gnum.kind != gnNone {
		var buf numBuf
		lit, nv, _ := f.gnum.format(&buf)
		return cmpNum(lit, nv, w.s, w.num)
	}
	if f.isRaw {
		return cmpNum(f.raw, f.num, w.s, w.num)
	}
	return cmpNum(f.str, f.num, w.s, w.num)
}

// equal is the deep equality of eq, ne and in.
func equal(w *cval, f *fval) bool {
	switch w.kind {
	case kNull:
		return f.kind == kNull
	case kBool:
		return f.kind == kBool && f.b == w.b
	case kStr:
		if f.kind != kStr {
			return false
		}
		if f.isRaw {
			return string(f.raw) == w.s
		}
		return f.str == w.s
	case kNum:
		return f.number() && f.cmp(w) == 0
	}
	if f.kind != w.kind {
		return false
	}
	if f.comp != nil {
		return eqAny(w, f.comp, f.meta)
	}
	// An array or object from the payload: decode it (slow path).
	var v any
	d := json.NewDecoder(bytes.NewReader(f.raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return false
	}
	return eqAny(w, v, false)
}

// eqAny compares a decoded or header value with w.
func eqAny(w *cval, v any, meta bool) bool {
	switch x := v.(type) {
	case []any:
		if w.kind != kArr || len(x) != len(w.arr) {
			return false
		}
		for i := range x {
			if !eqAny(&w.arr[i], x[i], meta) {
				return false
			}
		}
		return true
	case []string:
		if w.kind != kArr || len(x) != len(w.arr) {
			return false
		}
		for i := range x {
			if !eqAny(&w.arr[i], x[i], meta) {
				return false
			}
		}
		return true
	case map[string]any:
		if w.kind != kObj || len(x) != len(w.obj) {
			return false
		}
		for k, e := range x {
			we, ok := w.obj[k]
			if !ok || !eqAny(&we, e, meta) {
				return false
			}
		}
		return true
	case map[string]string:
		if w.kind != kObj || len(x) != len(w.obj) {
			return false
		}
		for k, e := range x {
			we, ok := w.obj[k]
			if !ok || !eqAny(&we, e, meta) {
				return false
			}
		}
		return true
	}
	f := fromAny(v, meta)
	if f.kind == kArr || f.kind == kObj || f.kind == kOther {
		return false
	}
	return equal(w, &f)
}

// fromAny describes a header (or decoded) value.
func fromAny(v any, meta bool) (f fval) {
	f.meta = meta
	switch x := v.(type) {
	case string:
		f.kind, f.str = kStr, x
	case []byte:
		f.kind, f.raw, f.isRaw = kStr, x, true
	case bool:
		f.kind, f.b = kBool, x
	case nil:
		f.kind = kNull
	case json.Number:
		f.kind, f.str = kNum, string(x)
	case []any, []string:
		f.kind, f.comp = kArr, v
	case map[string]any, map[string]string:
		f.kind, f.comp = kObj, v
	default:
		g, ok := toGoNum(v)
		if !ok {
			f.kind, f.comp = kOther, v
			return f
		}
		f.kind, f.gnum = kNum, g
	}
	return f
}

// fromJSON describes a value extracted from payload. A string with
// escapes or invalid UTF-8 is decoded into a fresh slice.
func fromJSON(payload []byte, jv *jval) fval {
	raw := payload[jv.start:jv.end]
	f := fval{kind: jv.kind, raw: raw, isRaw: true}
	switch {
	case jv.kind == kBool:
		f.b = raw[0] == 't'
	case jv.kind == kStr && !jv.plain:
		f.raw = jsontext.AppendUnquoted(make([]byte, 0, len(raw)), raw)
	}
	return f
}
