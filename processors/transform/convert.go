package transform

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/gobridge-oss/gobridge/core/jsontext"
)

// errNotText is returned by base64decode when the bytes are not UTF-8.
var errNotText = errors.New("value decodes to bytes that are not UTF-8 text")

// convert appends to dst the JSON text of the value v of payload after the
// conversion t. tmp is scratch space for decoding strings; the grown
// buffers are returned for reuse.
func convert(dst, tmp []byte, t TransformType, payload []byte, v span) (_, _ []byte, err error) {
	raw := payload[v.start:v.end]
	if v.kind == kNull || t == TransformNone {
		return append(dst, raw...), tmp, nil
	}
	switch t {
	case TransformString:
		switch v.kind {
		case kStr:
			dst = append(dst, raw...)
		case kNum, kBool:
			dst = append(append(append(dst, '"'), raw...), '"')
		default:
			tmp = compact(tmp[:0], raw)
			dst = appendQuoted(dst, tmp)
		}
		return dst, tmp, nil
	case TransformInt, TransformFloat, TransformBool:
		return convertScalar(dst, tmp, t, raw, v)
	case TransformBase64Encode:
		if v.kind == kStr {
			tmp = text(tmp[:0], raw, v.dirty)
		} else {
			tmp = compact(tmp[:0], raw)
		}
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, tmp)
		return append(dst, '"'), tmp, nil
	case TransformBase64Decode:
		if v.kind != kStr {
			return dst, tmp, fmt.Errorf("value is %s, not a string", v.kind)
		}
		tmp = text(tmp[:0], raw, v.dirty)
		n := len(tmp)
		var derr error
		for _, enc := range [...]*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if tmp, derr = enc.AppendDecode(tmp[:n], tmp[:n]); derr == nil {
				break
			}
		}
		if derr != nil {
			return dst, tmp, errors.New("value is not valid base64")
		}
		decoded := tmp[n:]
		if !utf8.Valid(decoded) {
			return dst, tmp, errNotText
		}
		return appendQuoted(dst, decoded), tmp, nil
	}
	return dst, tmp, fmt.Errorf("unknown transform %q", t)
}

// convertScalar handles int, float and bool.
func convertScalar(dst, tmp []byte, t TransformType, raw []byte, v span) (_, _ []byte, err error) {
	var lit []byte
	switch v.kind {
	case kBool:
		switch {
		case t == TransformBool:
			return append(dst, raw...), tmp, nil
		case raw[0] == 't':
			return append(dst, '1'), tmp, nil
		default:
			return append(dst, '0'), tmp, nil
		}
	case kNum:
		lit = raw
	case kStr:
		tmp = text(tmp[:0], raw, v.dirty)
		if t == TransformBool {
			b, perr := strconv.ParseBool(string(tmp))
			if perr != nil {
				return dst, tmp, fmt.Errorf("string %s is not a boolean", quoteShort(tmp))
			}
			return strconv.AppendBool(dst, b), tmp, nil
		}
		if len(tmp) == 0 || numberLen(tmp) != len(tmp) {
			return dst, tmp, fmt.Errorf("string %s is not a number", quoteShort(tmp))
		}
		lit = tmp
	default:
		return dst, tmp, fmt.Errorf("value is %s, not a number, string or boolean", v.kind)
	}
	switch t {
	case TransformFloat:
		f, perr := strconv.ParseFloat(string(lit), 64)
		if perr != nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return dst, tmp, fmt.Errorf("%s is outside the float64 range", quoteShort(lit))
		}
		return appendFloat(dst, f), tmp, nil
	case TransformInt:
		var buf [32]byte
		n, ierr := parseDecimal(lit, buf[:]).int64()
		if ierr != nil {
			return dst, tmp, fmt.Errorf("%s %v", quoteShort(lit), ierr)
		}
		return strconv.AppendInt(dst, n, 10), tmp, nil
	default: // TransformBool
		var buf [32]byte
		d := parseDecimal(lit, buf[:])
		switch {
		case d.is(0):
			return append(dst, "false"...), tmp, nil
		case d.is(1):
			return append(dst, "true"...), tmp, nil
		}
		return dst, tmp, fmt.Errorf("number %s is neither 0 nor 1", quoteShort(lit))
	}
}

// text appends the decoded text of the JSON string raw (quotes included).
func text(dst, raw []byte, dirty bool) []byte {
	content := raw[1 : len(raw)-1]
	if !dirty {
		return append(dst, content...)
	}
	return jsontext.AppendUnquoted(dst, content)
}

// quoteShort quotes b for an error message, cutting it at 40 bytes.
func quoteShort(b []byte) string {
	if len(b) > 40 {
		return strconv.Quote(string(b[:40])) + "..."
	}
	return strconv.Quote(string(b))
}
