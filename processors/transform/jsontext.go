package transform

import (
	"bytes"
	"unicode/utf8"
)

// skipValid returns the index just after the value starting at i of the
// valid JSON document b. It trusts b's validity and so checks nothing.
func skipValid(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
	depth := 0
	for {
		switch b[i] {
		case '"':
			i = stringEnd(b, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
}

// stringEnd returns the index just after the string starting at i of the
// valid JSON document b.
func stringEnd(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"') + i
		k := j
		for k > i && b[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j + 1
		}
		i = j + 1
	}
}

// appendQuoted appends s as a JSON string. Invalid UTF-8 becomes \ufffd.
func appendQuoted(dst, s []byte) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(s[i:])
			if r != utf8.RuneError || n != 1 {
				i += n
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// compact appends the valid JSON text raw without insignificant
// whitespace.
func compact(dst, raw []byte) []byte {
	inStr := false
	start := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case ' ', '\n', '\r', '\t':
			dst = append(dst, raw[start:i]...)
			start = i + 1
		}
	}
	return append(dst, raw[start:]...)
}
