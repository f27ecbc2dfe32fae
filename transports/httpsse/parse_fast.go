package httpsse

import (
	"encoding/json"
	"unicode/utf8"
)

// The fast path reads the envelope bodies that clients send almost always:
// lowercase field names, each at most once, plain strings without escapes,
// string header values and a payload of any JSON value. It builds the same
// wireEnvelope encoding/json would, without reflection. Anything else
// (escapes, non-string headers, payload_base64, nulls, duplicates, errors)
// makes it give up, and parseBody falls back to encoding/json, which also
// words every refusal. FuzzFastParseAgrees holds the two paths together.

// Bits of fastSeen, one per top-level field.
const (
	seenID = 1 << iota
	seenSubject
	seenPayload
	seenHeaders
	seenExpires
)

// fastParse fills w from body and reports whether it could. The strings and
// payload it stores are copies, so body may be reused afterwards.
func fastParse(body []byte, w *wireEnvelope) bool {
	i := skipWS(body, 0)
	if i >= len(body) || body[i] != '{' {
		return false
	}
	i = skipWS(body, i+1)
	if i < len(body) && body[i] == '}' {
		return skipWS(body, i+1) == len(body)
	}
	var seen int
	for {
		name, j, ok := plainString(body, i)
		if !ok {
			return false
		}
		j = skipWS(body, j)
		if j >= len(body) || body[j] != ':' {
			return false
		}
		j = skipWS(body, j+1)
		var bit int
		switch string(name) {
		case "id", "subject", "expires_at":
			s, k, ok := plainString(body, j)
			if !ok {
				return false
			}
			switch name[0] {
			case 'i':
				bit, w.ID = seenID, string(s)
			case 's':
				bit, w.Subject = seenSubject, string(s)
			default:
				bit, w.ExpiresAt = seenExpires, string(s)
			}
			j = k
		case "payload":
			end, ok := skipValue(body, j)
			if !ok || !json.Valid(body[j:end]) {
				return false
			}
			bit, w.Payload = seenPayload, append(json.RawMessage(nil), body[j:end]...)
			j = end
		case "headers":
			k, ok := stringMap(body, j, w)
			if !ok {
				return false
			}
			bit, j = seenHeaders, k
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		j = skipWS(body, j)
		if j >= len(body) {
			return false
		}
		switch body[j] {
		case ',':
			i = skipWS(body, j+1)
		case '}':
			return skipWS(body, j+1) == len(body)
		default:
			return false
		}
	}
}

// stringMap reads an object of plain string values into w.Headers and
// returns the offset after it.
func stringMap(body []byte, i int, w *wireEnvelope) (int, bool) {
	if i >= len(body) || body[i] != '{' {
		return 0, false
	}
	w.Headers = make(map[string]any, 4)
	i = skipWS(body, i+1)
	if i < len(body) && body[i] == '}' {
		return i + 1, true
	}
	for {
		k, j, ok := plainString(body, i)
		if !ok {
			return 0, false
		}
		j = skipWS(body, j)
		if j >= len(body) || body[j] != ':' {
			return 0, false
		}
		v, j, ok := plainString(body, skipWS(body, j+1))
		if !ok {
			return 0, false
		}
		if _, dup := w.Headers[string(k)]; dup {
			return 0, false
		}
		w.Headers[string(k)] = string(v)
		j = skipWS(body, j)
		if j >= len(body) {
			return 0, false
		}
		switch body[j] {
		case ',':
			i = skipWS(body, j+1)
		case '}':
			return j + 1, true
		default:
			return 0, false
		}
	}
}

// plainString reads a JSON string at body[i] that needs no unescaping and
// is valid UTF-8, returning its contents and the offset after the closing
// quote.
func plainString(body []byte, i int) ([]byte, int, bool) {
	if i >= len(body) || body[i] != '"' {
		return nil, 0, false
	}
	ascii := true
	for j := i + 1; j < len(body); j++ {
		switch c := body[j]; {
		case c == '"':
			s := body[i+1 : j]
			if !ascii && !utf8.Valid(s) {
				return nil, 0, false
			}
			return s, j + 1, true
		case c == '\\' || c < 0x20:
			return nil, 0, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, 0, false
}

// skipValue returns the offset just after the JSON value starting at
// body[i]. It only finds the value's end; the caller validates it.
func skipValue(body []byte, i int) (int, bool) {
	depth := 0
	for j := i; j < len(body); j++ {
		switch body[j] {
		case '"':
			k, ok := skipString(body, j)
			if !ok {
				return 0, false
			}
			j = k - 1
			if depth == 0 {
				return k, true
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j, j > i // a scalar ended by its container
			}
			depth--
			if depth == 0 {
				return j + 1, true
			}
		case ',', ' ', '\t', '\r', '\n':
			if depth == 0 {
				return j, j > i
			}
		}
	}
	return len(body), depth == 0 && len(body) > i
}

// skipString returns the offset after the string starting at body[i],
// stepping over escapes.
func skipString(body []byte, i int) (int, bool) {
	for j := i + 1; j < len(body); j++ {
		switch body[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

func skipWS(body []byte, i int) int {
	for i < len(body) {
		switch body[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}
