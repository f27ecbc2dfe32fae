package transform

import (
	"errors"
	"math"
	"strconv"
)

// decimal is a JSON number taken apart exactly: its value is
// ±digits × 10^exp, where digits has no leading or trailing zeros. Zero
// has empty digits.
type decimal struct {
	neg    bool
	digits []byte
	exp    int
}

// maxExp bounds the exponent kept while parsing. Anything beyond it is far
// outside every range this package converts to, and the bound keeps the
// arithmetic from overflowing.
const maxExp = 1 << 20

var (
	errFraction = errors.New("has a fractional part")
	errIntRange = errors.New("is outside the int64 range")
)

// parseDecimal takes apart a valid JSON number literal. The digits are
// gathered in buf, which only grows for literals longer than its capacity.
func parseDecimal(lit, buf []byte) decimal {
	var d decimal
	i := 0
	if lit[0] == '-' {
		d.neg = true
		i++
	}
	ds := buf[:0]
	frac, dot := 0, false
	for ; i < len(lit); i++ {
		c := lit[i]
		if c == '.' {
			dot = true
			continue
		}
		if c == 'e' || c == 'E' {
			break
		}
		ds = append(ds, c)
		if dot {
			frac++
		}
	}
	exp := 0
	if i < len(lit) {
		i++
		eneg := lit[i] == '-'
		if lit[i] == '+' || lit[i] == '-' {
			i++
		}
		for ; i < len(lit); i++ {
			if exp < maxExp {
				exp = exp*10 + int(lit[i]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	exp -= frac
	k := 0
	for k < len(ds) && ds[k] == '0' {
		k++
	}
	ds = ds[k:]
	for len(ds) > 0 && ds[len(ds)-1] == '0' {
		ds = ds[:len(ds)-1]
		exp++
	}
	if len(ds) == 0 {
		return decimal{}
	}
	d.digits, d.exp = ds, exp
	return d
}

// int64 returns d as an int64 when it is a whole number in range.
func (d decimal) int64() (int64, error) {
	if len(d.digits) == 0 {
		return 0, nil
	}
	if d.exp < 0 {
		return 0, errFraction
	}
	if len(d.digits)+d.exp > 19 {
		return 0, errIntRange
	}
	var u uint64
	for _, c := range d.digits {
		u = u*10 + uint64(c-'0') // at most 19 digits: no overflow
	}
	for range d.exp {
		if u > math.MaxUint64/10 {
			return 0, errIntRange
		}
		u *= 10
	}
	switch {
	case d.neg && u <= 1<<63:
		return int64(-u), nil // two's complement: -(1<<63) stays MinInt64
	case !d.neg && u <= math.MaxInt64:
		return int64(u), nil
	}
	return 0, errIntRange
}

// is reports whether d equals the one-digit whole number n (0 to 9).
func (d decimal) is(n byte) bool {
	if n == 0 {
		return len(d.digits) == 0
	}
	return !d.neg && d.exp == 0 && len(d.digits) == 1 && d.digits[0] == '0'+n
}

// appendFloat appends f as a JSON number: plain notation for magnitudes
// from 1e-6 up to 1e21, exponent notation outside, shortest digits that
// read back as f.
func appendFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// Drop the exponent's leading zero: 1e-07 becomes 1e-7.
		n := len(dst) - start
		if n >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}
