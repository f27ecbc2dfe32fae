package httpsse

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// jsonHeaders returns a copy of h in which every value is something
// encoding/json writes without error: byte slices become strings (base64
// when not UTF-8), non-finite floats and unknown types their fmt.Sprint
// text. Nested maps and slices are converted too.
func jsonHeaders(h map[string]any) map[string]any {
	out := make(map[string]any, len(h))
	for k, v := range h {
		out[k] = jsonValue(v)
	}
	return out
}

func jsonValue(v any) any {
	switch t := v.(type) {
	case nil, string, bool, json.Number,
		int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return v
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Sprint(t)
		}
		return v
	case float32:
		return jsonValue(float64(t))
	case []byte:
		return bytesText(t)
	case time.Time:
		return t.UTC().Format(time.RFC3339Nano)
	case map[string]any:
		return jsonHeaders(t)
	case map[string]string:
		out := make(map[string]any, len(t))
		for k, s := range t {
			out[k] = s
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = jsonValue(x)
		}
		return out
	case []string:
		out := make([]any, len(t))
		for i, s := range t {
			out[i] = s
		}
		return out
	default:
		return fmt.Sprint(v)
	}
}

func bytesText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// headerText renders a header value for an HTTP header line: strings and
// UTF-8 byte slices as they are, anything else as its JSON text.
func headerText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []byte:
		return bytesText(t)
	}
	b, err := json.Marshal(jsonValue(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// validHeaderName reports whether name is an HTTP field name (an RFC 9110
// token).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isTokenChar(name[i]) {
			return false
		}
	}
	return true
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// validHeaderValue reports whether v may be sent as an HTTP field value:
// no control characters other than horizontal tab.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// hopHeaders are HTTP header names a sender never copies from envelope
// headers: they describe the connection or the framing of this request,
// not the message.
var hopHeaders = map[string]bool{
	"connection": true, "content-length": true, "content-type": true,
	"host": true, "keep-alive": true, "proxy-authenticate": true,
	"proxy-authorization": true, "proxy-connection": true, "te": true,
	"trailer": true, "transfer-encoding": true, "upgrade": true,
	"expect": true, "authorization": true, "cookie": true,
}
