package routing

import (
	"math"
	"strconv"
)

// text is what the number code reads: a literal held as a string or as
// bytes. Only indexing and len are used, so neither form is copied.
type text interface{ ~string | ~[]byte }

// expClamp bounds the explicit exponent of a literal. Literals with larger
// exponents are absurd; clamping keeps the arithmetic from overflowing.
const expClamp = 1 << 40

// numView describes a decimal number literal in normalised form without
// copying it: value = ±0.d1d2…dn × 10^exp, where d1…dn are the significant
// digits found at positions first..last of the literal (a '.' may sit in
// between) and d1 and dn are not zero.
type numView struct {
	inf   int8 // +1 or -1 for an infinite value (header floats only)
	neg   bool
	zero  bool
	first int
	last  int
	n     int // number of significant digits
	exp   int64
}

// integral reports whether the value is a whole number.
func (v numView) integral() bool { return v.inf == 0 && (v.zero || int64(v.n) <= v.exp) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseNum reads s as one JSON number literal. ok is false when s is not
// exactly such a literal.
func parseNum[T text](s T) (v numView, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		v.neg = true
		i++
	}
	if i >= len(s) {
		return v, false
	}
	intStart := i
	switch {
	case s[i] == '0':
		i++
	case s[i] >= '1' && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return v, false
	}
	intDigits := i - intStart
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == j {
			return v, false
		}
	}
	mantEnd := i
	var e int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		j := i
		for i < len(s) && isDigit(s[i]) {
			if e < expClamp {
				e = e*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == j {
			return v, false
		}
		if eneg {
			e = -e
		}
	}
	if i != len(s) {
		return v, false
	}
	ord, firstOrd, lastOrd := 0, -1, -1
	for j := intStart; j < mantEnd; j++ {
		c := s[j]
		if c == '.' {
			continue
		}
		if c != '0' {
			if firstOrd < 0 {
				firstOrd, v.first = ord, j
			}
			lastOrd, v.last = ord, j
		}
		ord++
	}
	if firstOrd < 0 {
		return numView{zero: true}, true
	}
	v.n = lastOrd - firstOrd + 1
	v.exp = int64(intDigits-firstOrd) + e
	return v, true
}

func (v numView) sign() int {
	switch {
	case v.inf != 0:
		return int(v.inf)
	case v.zero:
		return 0
	case v.neg:
		return -1
	}
	return 1
}

// cmpNum compares two numbers exactly and returns -1, 0 or +1.
func cmpNum[A, B text](a A, av numView, b B, bv numView) int {
	if av.inf != 0 || bv.inf != 0 {
		// A finite value sits between the infinities.
		return cmpInt(int(av.inf), int(bv.inf))
	}
	sa, sb := av.sign(), bv.sign()
	if sa != sb || sa == 0 {
		return cmpInt(sa, sb)
	}
	m := cmpMag(a, av, b, bv)
	if sa < 0 {
		m = -m
	}
	return m
}

// cmpMag compares the magnitudes of two non-zero finite numbers.
func cmpMag[A, B text](a A, av numView, b B, bv numView) int {
	if av.exp != bv.exp {
		if av.exp > bv.exp {
			return 1
		}
		return -1
	}
	i, j := av.first, bv.first
	for {
		if i <= av.last && a[i] == '.' {
			i++
		}
		if j <= bv.last && b[j] == '.' {
			j++
		}
		ai, bj := i <= av.last, j <= bv.last
		switch {
		case ai && bj:
		case ai:
			return 1 // a has more significant digits, and the extra ones are not all zero
		case bj:
			return -1
		default:
			return 0
		}
		if a[i] != b[j] {
			if a[i] > b[j] {
				return 1
			}
			return -1
		}
		i++
		j++
	}
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// numBuf holds the decimal text of a Go number.
type numBuf [40]byte

// goNum is a Go numeric value held without pointers, so that it can sit in
// values that escape analysis treats as leaking.
type goNum struct {
	kind goNumKind
	i    int64
	u    uint64
	f    float64
}

type goNumKind uint8

const (
	gnNone goNumKind = iota
	gnInt
	gnUint
	gnFloat64
	gnFloat32
)

// toGoNum converts any Go numeric type; ok is false for other types.
func toGoNum(v any) (g goNum, ok bool) {
	switch x := v.(type) {
	case int:
		return goNum{kind: gnInt, i: int64(x)}, true
	case int8:
		return goNum{kind: gnInt, i: int64(x)}, true
	case int16:
		return goNum{kind: gnInt, i: int64(x)}, true
	case int32:
		return goNum{kind: gnInt, i: int64(x)}, true
	case int64:
		return goNum{kind: gnInt, i: x}, true
	case uint:
		return goNum{kind: gnUint, u: uint64(x)}, true
	case uint8:
		return goNum{kind: gnUint, u: uint64(x)}, true
	case uint16:
		return goNum{kind: gnUint, u: uint64(x)}, true
	case uint32:
		return goNum{kind: gnUint, u: uint64(x)}, true
	case uint64:
		return goNum{kind: gnUint, u: x}, true
	case uintptr:
		return goNum{kind: gnUint, u: uint64(x)}, true
	case float32:
		return goNum{kind: gnFloat32, f: float64(x)}, true
	case float64:
		return goNum{kind: gnFloat64, f: x}, true
	}
	return goNum{}, false
}

// format writes g as a decimal literal into buf and returns it with its
// view. Floats use their shortest round-trip form; infinities have no
// literal and only a view. ok is false for NaN, which compares with
// nothing.
func (g goNum) format(buf *numBuf) (lit []byte, nv numView, ok bool) {
	switch g.kind {
	case gnInt:
		lit = strconv.AppendInt(buf[:0], g.i, 10)
	case gnUint:
		lit = strconv.AppendUint(buf[:0], g.u, 10)
	case gnFloat64, gnFloat32:
		switch {
		case math.IsNaN(g.f):
			return nil, numView{}, false
		case math.IsInf(g.f, 1):
			return nil, numView{inf: 1}, true
		case math.IsInf(g.f, -1):
			return nil, numView{inf: -1}, true
		}
		bits := 64
		if g.kind == gnFloat32 {
			bits = 32
		}
		lit = strconv.AppendFloat(buf[:0], g.f, 'g', -1, bits)
	default:
		return nil, numView{}, false
	}
	nv, ok = parseNum(lit)
	return lit, nv, ok
}
