package routing

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/gobridge-oss/gobridge/core/jsontext"
)

// strFlags describes string content found by scanStr.
type strFlags uint8

const (
	flEscape strFlags = 1 << iota // holds at least one backslash escape
	flHigh                        // holds bytes >= 0x80
)

// ws skips JSON whitespace.
func (s *scanner) ws() {
	b, i := s.b, s.i
	for i < len(b) && b[i] <= ' ' {
		if c := b[i]; c != ' ' && c != '\n' && c != '\r' && c != '\t' {
			break
		}
		i++
	}
	s.i = i
}

// scalar validates and skips a string, number or literal at s.i.
func (s *scanner) scalar() bool {
	switch s.b[s.i] {
	case '"':
		_, _, ok := s.scanStr()
		return ok
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case 'n':
		return s.lit("null")
	}
	return s.scanNum()
}

// lit consumes the literal w.
func (s *scanner) lit(w string) bool {
	if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return true
	}
	return false
}

// scanNum validates and skips a number at s.i.
func (s *scanner) scanNum() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return false
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i++
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		if i == j {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		if i == j {
			return false
		}
	}
	s.i = i
	return true
}

// scanStr validates the string starting at s.i (on its opening quote) and
// moves past it. end is the index of the closing quote.
func (s *scanner) scanStr() (end int, fl strFlags, ok bool) {
	b := s.b
	i := s.i + 1
	for i < len(b) {
		// Skip eight ordinary bytes at a time; stop on the first byte that
		// needs a look (see strSpecial).
		for i+8 <= len(b) {
			m := strSpecial(binary.LittleEndian.Uint64(b[i:]))
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			s.i = i + 1
			return i, fl, true
		case c == '\\':
			if i+1 >= len(b) {
				return 0, 0, false
			}
			fl |= flEscape
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || jsontext.Hex4(b[i+2:i+6]) < 0 {
					return 0, 0, false
				}
				i += 6
			default:
				return 0, 0, false
			}
		case c < 0x20:
			return 0, 0, false
		default:
			if c >= utf8.RuneSelf {
				fl |= flHigh
			}
			i++
		}
	}
	return 0, 0, false
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// strSpecial returns a mask with the high bit set in the bytes of the
// little-endian word x that are a quote, a backslash, a control character
// or non-ASCII. Only the lowest marked byte is guaranteed to be special
// (borrows may mark bytes above it), which is all scanStr relies on.
func strSpecial(x uint64) uint64 {
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return (((q - ones) &^ q) | ((bs - ones) &^ bs) | ((x - ones*0x20) &^ x) | x) & highs
}
