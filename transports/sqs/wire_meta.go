package sqs

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// marshal encodes m as the JSON of AttrEnvelope. Metadata without
// overflow headers (the usual case: subject, ID and times) is written
// directly, byte for byte what encoding/json writes, without reflection;
// the rest goes through encoding/json. Either way readers decode it with
// encoding/json, so messages written before and after read the same.
func (m *meta) marshal() (string, error) {
	if len(m.Headers) > 0 || len(m.Raw) > 0 || !utf8.ValidString(m.Subject) || !utf8.ValidString(m.ID) {
		c := *m // encoding/json keeps what it is given: m stays on the caller's stack
		b, err := json.Marshal(&c)
		return string(b), err
	}
	var buf [160]byte
	b := append(buf[:0], '{')
	if m.Subject != "" {
		b = appendJSONString(appendKey(b, "s"), m.Subject)
	}
	if len(m.SubjectBytes) > 0 {
		b = append(appendKey(b, "sb"), '"')
		b = base64.StdEncoding.AppendEncode(b, m.SubjectBytes)
		b = append(b, '"')
	}
	if m.ID != "" {
		b = appendJSONString(appendKey(b, "id"), m.ID)
	}
	if m.CreatedAt != 0 {
		b = strconv.AppendInt(appendKey(b, "c"), m.CreatedAt, 10)
	}
	if m.ExpiresAt != 0 {
		b = strconv.AppendInt(appendKey(b, "e"), m.ExpiresAt, 10)
	}
	if m.Base64 {
		b = append(appendKey(b, "b64"), "true"...)
	}
	b = append(b, '}')
	return string(b), nil
}

// appendKey appends an object key and its colon, after a comma unless it
// is the object's first.
func appendKey(b []byte, k string) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

// appendJSONString appends s, valid UTF-8, as a JSON string escaped the
// way encoding/json escapes it (HTML-safe, U+2028 and U+2029 escaped).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// unmarshalMeta decodes the JSON of AttrEnvelope, or returns the zero meta
// when it is not valid.
func unmarshalMeta(s string) meta {
	var m meta
	if json.Unmarshal([]byte(s), &m) != nil {
		return meta{}
	}
	return m
}
