package routing

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
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
				if i+6 > len(b) || hex4(b[i+2:i+6]) < 0 {
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

// hex4 decodes four hex digits, or returns -1.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// appendUnquoted appends the decoded form of validated string content.
// Escapes are resolved, \u surrogate pairs combined, and lone surrogates
// and invalid UTF-8 bytes replaced by U+FFFD, as encoding/json does.
func appendUnquoted(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\\':
			switch e := src[i+1]; e {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hex4(src[i+2 : i+6])
				i += 6
				if r >= 0xD800 && r < 0xE000 {
					r = surrogate(src[i:], r, &i)
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, e)
			}
			i += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, src[i:i+size]...)
			}
			i += size
		}
	}
	return dst
}

// surrogate completes a UTF-16 surrogate r: when r is a high surrogate and
// rest starts with an escaped low surrogate, it consumes that escape and
// returns the combined rune; otherwise it returns U+FFFD.
func surrogate(rest []byte, r rune, i *int) rune {
	if r < 0xDC00 && len(rest) >= 6 && rest[0] == '\\' && rest[1] == 'u' {
		if lo := hex4(rest[2:6]); lo >= 0xDC00 && lo < 0xE000 {
			*i += 6
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
		}
	}
	return utf8.RuneError
}
