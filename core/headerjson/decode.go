package headerjson

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The stored form of headers is described in headers.go.

// Decode parses the stored form; nil or empty input yields an empty
// map.
func Decode(raw []byte) (map[string]any, error) {
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
