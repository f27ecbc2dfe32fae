package transform

import (
	"encoding/binary"

	"github.com/gobridge-oss/gobridge/core/jsontext"
)

// ws skips JSON whitespace.
func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\n', '\r', '\t':
			s.i++
		default:
			return
		}
	}
}

// lit consumes the literal w.
func (s *scanner) lit(w string) bool {
	if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return true
	}
	s.i++
	return false
}

// num consumes a number.
func (s *scanner) num() bool {
	n := numberLen(s.b[s.i:])
	s.i += n
	return n > 0
}

// numberLen returns the length of the JSON number at the start of b, or 0
// when b does not start with one.
func numberLen(b []byte) int {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return 0
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return 0
		}
		i = j
	}
	return i
}

// digits returns the index of the first non-digit of b at or after i.
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// str consumes a string. dirty reports escapes or non-ASCII bytes.
func (s *scanner) str() (dirty, ok bool) {
	b := s.b
	i := s.i + 1
	for {
		i = plainRun(b, i)
		for i < len(b) && b[i] >= 0x20 && b[i] < 0x80 && b[i] != '"' && b[i] != '\\' {
			i++
		}
		if i >= len(b) {
			s.i = i
			return false, false
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return dirty, true
		case c == '\\':
			dirty = true
			if i+1 >= len(b) {
				s.i = i
				return false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || jsontext.Hex4(b[i+2:i+6]) < 0 {
					s.i = i
					return false, false
				}
				i += 6
			default:
				s.i = i
				return false, false
			}
		case c < 0x20:
			s.i = i
			return false, false
		default:
			dirty = true
			i++
		}
	}
}

// Word constants for plainRun.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainRun returns the index of the first byte at or after i that is not
// plain string content (printable ASCII other than a quote or backslash),
// or a nearby earlier index; it skips eight bytes at a time.
func plainRun(b []byte, i int) int {
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ (ones * '"')
		e := x ^ (ones * '\\')
		special := (q - ones) & ^q
		special |= (e - ones) & ^e
		special |= (x - ones*0x20) & ^x
		if (special|x)&highs != 0 {
			return i
		}
		i += 8
	}
	return i
}
