// Package jsontext holds the small pieces of JSON text handling that the
// hand-written scanners of core/routing and processors/transform share:
// decoding the content of a string literal and its \u escapes.
package jsontext

import "unicode/utf8"

// Hex4 decodes the four hex digits at the start of h (the XXXX of a \uXXXX
// escape), or returns -1 when they are not four hex digits. h must hold at
// least four bytes.
func Hex4(h []byte) rune {
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

// AppendUnquoted appends the text of the content of a JSON string literal
// (the bytes between the quotes), which the caller has already validated.
// Escapes are decoded and \u surrogate pairs combined; lone surrogates and
// invalid UTF-8 become U+FFFD, as encoding/json does.
func AppendUnquoted(dst, content []byte) []byte {
	for i := 0; i < len(content); {
		c := content[i]
		switch {
		case c == '\\':
			switch e := content[i+1]; e {
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
				r := Hex4(content[i+2 : i+6])
				i += 6
				if r >= 0xD800 && r < 0xE000 {
					r = surrogate(content[i:], r, &i)
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
			r, size := utf8.DecodeRune(content[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, content[i:i+size]...)
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
		if lo := Hex4(rest[2:6]); lo >= 0xDC00 && lo < 0xE000 {
			*i += 6
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
		}
	}
	return utf8.RuneError
}
