package tenant

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// maxExactInt is 2^53, the largest magnitude up to which every integer
// survives a round trip through a JSON number decoded as float64.
const maxExactInt = 1 << 53

// tenantID turns a header value into a tenant ID. It returns the ID, or
// "" with an empty problem when the value is absent or empty, or a problem
// description when the value is present but cannot be a tenant ID.
//
// Strings and byte slices are taken as they are. Integers of any Go kind,
// integral float32/float64 values (how encoding/json brings numbers back)
// and json.Number are written in decimal, provided their magnitude is at
// most 2^53: beyond that a JSON round trip would change the value.
// Fractions, NaN, infinities and every other type are refused.
func tenantID(v any) (id, problem string) {
	switch t := v.(type) {
	case nil:
		return "", ""
	case string:
		return t, ""
	case []byte:
		return string(t), ""
	case int:
		return fromInt(int64(t))
	case int8:
		return fromInt(int64(t))
	case int16:
		return fromInt(int64(t))
	case int32:
		return fromInt(int64(t))
	case int64:
		return fromInt(t)
	case uint:
		return fromUint(uint64(t))
	case uint8:
		return fromUint(uint64(t))
	case uint16:
		return fromUint(uint64(t))
	case uint32:
		return fromUint(uint64(t))
	case uint64:
		return fromUint(t)
	case float32:
		return fromFloat(float64(t))
	case float64:
		return fromFloat(t)
	case json.Number:
		return fromJSONNumber(t)
	default:
		return "", fmt.Sprintf("value of type %T cannot be a tenant ID", v)
	}
}

func fromInt(n int64) (string, string) {
	if n > maxExactInt || n < -maxExactInt {
		return "", "numeric tenant ID beyond ±2^53 loses precision in JSON; use a string"
	}
	return strconv.FormatInt(n, 10), ""
}

func fromUint(n uint64) (string, string) {
	if n > maxExactInt {
		return "", "numeric tenant ID beyond 2^53 loses precision in JSON; use a string"
	}
	return strconv.FormatUint(n, 10), ""
}

func fromFloat(f float64) (string, string) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "", "numeric tenant ID is not a finite number"
	case f != math.Trunc(f):
		return "", "numeric tenant ID has a fractional part"
	case math.Abs(f) > maxExactInt:
		return "", "numeric tenant ID beyond ±2^53 loses precision in JSON; use a string"
	}
	return strconv.FormatInt(int64(f), 10), ""
}

func fromJSONNumber(n json.Number) (string, string) {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return fromInt(i)
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		if math.IsInf(f, 0) {
			return "", "numeric tenant ID is not a finite number"
		}
		return "", "json.Number value is not a number"
	}
	return fromFloat(f)
}
