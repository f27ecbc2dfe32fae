package headerjson

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Headers are kept as a JSON object so that an operator can read them
// with a store's own JSON tools. To give back the Go types a transport put
// in, every value that is not a plain string is wrapped in a one-key
// object whose key names its type:
//
//	{"traceparent":"00-…","retries":{"i":3},"ok":{"b":true},"raw":{"x":"AAE="}}
//
// Tags: b bool; i i8 i16 i32 i64 u u8 u16 u32 u64 integers; f32 f64 floats
// (as strings, so NaN and ±Inf survive); x []byte (base64); sx a string
// that is not valid UTF-8 (base64); t time.Time (RFC 3339); d
// time.Duration; n nil; a []any; m map[string]any; as []string; ms
// map[string]string; j any other type, as its encoding/json form (it comes
// back as a generic JSON value) or, when it has none, as its %v text.
//
// A key that is not valid UTF-8 or starts with a NUL byte is stored as NUL
// followed by its base64 form, so that every key round-trips exactly.

// Encode returns the stored form of h, or nil for an empty map.
func Encode(h map[string]any) []byte {
	if len(h) == 0 {
		return nil
	}
	return appendMap(make([]byte, 0, 64*len(h)), h)
}

// appendMap writes m as a JSON object whose values are encoded by
// appendValue; it serves both map[string]any and map[string]string.
func appendMap[V any](b []byte, m map[string]V) []byte {
	b = append(b, '{')
	first := true
	for k, v := range m {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendKey(b, k)
		b = append(b, ':')
		b = appendValue(b, v)
	}
	return append(b, '}')
}

func appendKey(b []byte, k string) []byte {
	if utf8.ValidString(k) && !strings.HasPrefix(k, "\x00") {
		return appendString(b, k)
	}
	return appendString(b, "\x00"+base64.StdEncoding.EncodeToString([]byte(k)))
}

func appendTagged(b []byte, tag string) []byte {
	b = append(b, `{"`...)
	b = append(b, tag...)
	return append(b, `":`...)
}

func appendValue(b []byte, v any) []byte {
	switch t := v.(type) {
	case string:
		if utf8.ValidString(t) {
			return appendString(b, t)
		}
		return append(appendString(appendTagged(b, "sx"), base64.StdEncoding.EncodeToString([]byte(t))), '}')
	case nil:
		return append(b, `{"n":null}`...)
	case bool:
		return append(strconv.AppendBool(appendTagged(b, "b"), t), '}')
	case int:
		return appendInt(b, "i", int64(t))
	case int8:
		return appendInt(b, "i8", int64(t))
	case int16:
		return appendInt(b, "i16", int64(t))
	case int32:
		return appendInt(b, "i32", int64(t))
	case int64:
		return appendInt(b, "i64", t)
	case uint:
		return appendUint(b, "u", uint64(t))
	case uint8:
		return appendUint(b, "u8", uint64(t))
	case uint16:
		return appendUint(b, "u16", uint64(t))
	case uint32:
		return appendUint(b, "u32", uint64(t))
	case uint64:
		return appendUint(b, "u64", t)
	case float32:
		return appendFloat(b, "f32", float64(t), 32)
	case float64:
		return appendFloat(b, "f64", t, 64)
	case time.Duration:
		return appendInt(b, "d", int64(t))
	case time.Time:
		if text, err := t.MarshalText(); err == nil {
			return append(appendString(appendTagged(b, "t"), string(text)), '}')
		}
	case []byte:
		if t == nil {
			return append(b, `{"x":null}`...)
		}
		return append(appendString(appendTagged(b, "x"), base64.StdEncoding.EncodeToString(t)), '}')
	case []any:
		b = appendTagged(b, "a")
		b = append(b, '[')
		for i, x := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, x)
		}
		return append(b, "]}"...)
	case []string:
		b = appendTagged(b, "as")
		b = append(b, '[')
		for i, x := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, x)
		}
		return append(b, "]}"...)
	case map[string]any:
		return append(appendMap(appendTagged(b, "m"), t), '}')
	case map[string]string:
		return append(appendMap(appendTagged(b, "ms"), t), '}')
	}
	raw, err := json.Marshal(v)
	if err != nil {
		raw = appendString(nil, strings.ToValidUTF8(fmt.Sprintf("%v", v), "\uFFFD"))
	}
	return append(append(appendTagged(b, "j"), raw...), '}')
}

func appendInt(b []byte, tag string, n int64) []byte {
	return append(strconv.AppendInt(appendTagged(b, tag), n, 10), '}')
}

func appendUint(b []byte, tag string, n uint64) []byte {
	return append(strconv.AppendUint(appendTagged(b, tag), n, 10), '}')
}

func appendFloat(b []byte, tag string, f float64, bits int) []byte {
	b = append(appendTagged(b, tag), '"')
	b = strconv.AppendFloat(b, f, 'g', -1, bits)
	return append(b, `"}`...)
}

// appendString appends s, which must be valid UTF-8, as a JSON string.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
