package sqlite

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Headers are stored as a JSON object so that an operator can read them
// with SQLite's JSON functions. To give back the Go types a transport put
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

// encodeHeaders returns the stored form of h, or nil for an empty map.
func encodeHeaders(h map[string]any) []byte {
	if len(h) == 0 {
		return nil
	}
	return appendMap(make([]byte, 0, 64*len(h)), h)
}

func appendMap(b []byte, m map[string]any) []byte {
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
		b = appendTagged(b, "ms")
		b = append(b, '{')
		first := true
		for k, x := range t {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendKey(b, k)
			b = append(b, ':')
			b = appendValue(b, x)
		}
		return append(b, "}}"...)
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

// decodeHeaders parses the stored form; nil or empty input yields an empty
// map.
func decodeHeaders(raw []byte) (map[string]any, error) {
	if len(raw) == 0 {
		return map[string]any{}, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("decode headers: %w", err)
	}
	return decodeMap(top)
}

func decodeMap(m map[string]json.RawMessage) (map[string]any, error) {
	out := make(map[string]any, len(m))
	for k, raw := range m {
		key, err := decodeKey(k)
		if err != nil {
			return nil, err
		}
		v, err := decodeValue(raw)
		if err != nil {
			return nil, fmt.Errorf("header %q: %w", key, err)
		}
		out[key] = v
	}
	return out, nil
}

func decodeKey(k string) (string, error) {
	if !strings.HasPrefix(k, "\x00") {
		return k, nil
	}
	b, err := base64.StdEncoding.DecodeString(k[1:])
	return string(b), err
}

func decodeValue(raw json.RawMessage) (any, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var tagged map[string]json.RawMessage
	if err := json.Unmarshal(raw, &tagged); err != nil {
		return nil, err
	}
	if len(tagged) != 1 {
		return nil, fmt.Errorf("value %s is not a tagged value", raw)
	}
	for tag, body := range tagged {
		return decodeTagged(tag, body)
	}
	return nil, nil // unreachable: the map has one entry
}

func decodeTagged(tag string, body json.RawMessage) (any, error) {
	switch tag {
	case "n":
		return nil, nil
	case "b":
		var v bool
		err := json.Unmarshal(body, &v)
		return v, err
	case "i", "i8", "i16", "i32", "i64", "d":
		return decodeInt(tag, body)
	case "u", "u8", "u16", "u32", "u64":
		return decodeUint(tag, body)
	case "f32", "f64":
		var s string
		if err := json.Unmarshal(body, &s); err != nil {
			return nil, err
		}
		if tag == "f32" {
			f, err := strconv.ParseFloat(s, 32)
			return float32(f), err
		}
		return strconv.ParseFloat(s, 64)
	case "sx", "x":
		var s *string
		if err := json.Unmarshal(body, &s); err != nil {
			return nil, err
		}
		if s == nil {
			return []byte(nil), nil
		}
		b, err := base64.StdEncoding.DecodeString(*s)
		if tag == "sx" {
			return string(b), err
		}
		return b, err
	case "t":
		var t time.Time
		err := json.Unmarshal(body, &t)
		return t, err
	case "a", "as":
		return decodeSlice(tag, body)
	case "m":
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, err
		}
		return decodeMap(m)
	case "ms":
		return decodeStringMap(body)
	case "j":
		var v any
		err := json.Unmarshal(body, &v)
		return v, err
	}
	return nil, fmt.Errorf("unknown value tag %q", tag)
}

func decodeInt(tag string, body json.RawMessage) (any, error) {
	n, err := strconv.ParseInt(string(body), 10, bitSize(tag))
	if err != nil {
		return nil, err
	}
	switch tag {
	case "i":
		return int(n), nil
	case "i8":
		return int8(n), nil
	case "i16":
		return int16(n), nil
	case "i32":
		return int32(n), nil
	case "d":
		return time.Duration(n), nil
	}
	return n, nil
}

func decodeUint(tag string, body json.RawMessage) (any, error) {
	n, err := strconv.ParseUint(string(body), 10, bitSize(tag))
	if err != nil {
		return nil, err
	}
	switch tag {
	case "u":
		return uint(n), nil
	case "u8":
		return uint8(n), nil
	case "u16":
		return uint16(n), nil
	case "u32":
		return uint32(n), nil
	}
	return n, nil
}

func decodeSlice(tag string, body json.RawMessage) (any, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		return nil, err
	}
	if tag == "as" {
		out := make([]string, len(items))
		for i, raw := range items {
			v, err := decodeValue(raw)
			s, ok := v.(string)
			if err != nil || !ok {
				return nil, fmt.Errorf("string list item %s: %v", raw, err)
			}
			out[i] = s
		}
		return out, nil
	}
	out := make([]any, len(items))
	for i, raw := range items {
		v, err := decodeValue(raw)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func decodeStringMap(body json.RawMessage) (any, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(m))
	for k, raw := range m {
		key, err := decodeKey(k)
		if err != nil {
			return nil, err
		}
		v, err := decodeValue(raw)
		s, ok := v.(string)
		if err != nil || !ok {
			return nil, fmt.Errorf("string map value %s: %v", raw, err)
		}
		out[key] = s
	}
	return out, nil
}

// bitSize returns the width of an integer tag.
func bitSize(tag string) int {
	switch tag {
	case "i8", "u8":
		return 8
	case "i16", "u16":
		return 16
	case "i32", "u32":
		return 32
	case "i", "u":
		return strconv.IntSize
	}
	return 64
}
