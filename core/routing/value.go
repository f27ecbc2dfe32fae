package routing

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// vkind is the JSON-like type of a value.
type vkind uint8

const (
	kMissing vkind = iota
	kNull
	kBool
	kNum
	kStr
	kArr
	kObj
)

// maxValueDepth bounds nesting in configured values, which also stops
// self-referencing slices and maps.
const maxValueDepth = 64

// cval is a configured value normalised at compile time.
type cval struct {
	kind vkind
	b    bool
	s    string // string value, or the decimal literal of a number
	bs   []byte // s as bytes, for strings
	num  numView
	arr  []cval
	obj  map[string]cval
}

var errTooDeep = errors.New("value is nested too deeply")

// normalize converts a value decoded from configuration (YAML, JSON or Go
// literals) into a cval.
func normalize(v any, depth int) (cval, error) {
	if depth > maxValueDepth {
		return cval{}, errTooDeep
	}
	switch x := v.(type) {
	case nil:
		return cval{kind: kNull}, nil
	case bool:
		return cval{kind: kBool, b: x}, nil
	case string:
		return cval{kind: kStr, s: x, bs: []byte(x)}, nil
	case []byte:
		return cval{kind: kStr, s: string(x), bs: append([]byte(nil), x...)}, nil
	case json.Number:
		return numberValue(string(x))
	case float32:
		return floatValue(float64(x), 32)
	case float64:
		return floatValue(x, 64)
	}
	if g, ok := toGoNum(v); ok {
		var buf numBuf
		lit, _, _ := g.format(&buf)
		return numberValue(string(lit))
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return normalize(rv.String(), depth)
	case reflect.Bool:
		return normalize(rv.Bool(), depth)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return normalize(rv.Int(), depth)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return normalize(rv.Uint(), depth)
	case reflect.Float32, reflect.Float64:
		return floatValue(rv.Float(), rv.Type().Bits())
	case reflect.Slice, reflect.Array:
		out := cval{kind: kArr, arr: make([]cval, rv.Len())}
		for i := range out.arr {
			e, err := normalize(rv.Index(i).Interface(), depth+1)
			if err != nil {
				return cval{}, err
			}
			out.arr[i] = e
		}
		return out, nil
	case reflect.Map:
		out := cval{kind: kObj, obj: make(map[string]cval, rv.Len())}
		it := rv.MapRange()
		for it.Next() {
			k, ok := it.Key().Interface().(string)
			if !ok {
				return cval{}, fmt.Errorf("object key of type %T is not supported; keys must be strings", it.Key().Interface())
			}
			e, err := normalize(it.Value().Interface(), depth+1)
			if err != nil {
				return cval{}, err
			}
			out.obj[k] = e
		}
		return out, nil
	}
	return cval{}, fmt.Errorf("value of type %T is not supported", v)
}

func floatValue(f float64, bits int) (cval, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return cval{}, fmt.Errorf("number %v is not finite", f)
	}
	return numberValue(strconv.FormatFloat(f, 'g', -1, bits))
}

func numberValue(lit string) (cval, error) {
	nv, ok := parseNum(lit)
	if !ok {
		return cval{}, fmt.Errorf("%q is not a valid number", lit)
	}
	return cval{kind: kNum, s: lit, num: nv}, nil
}

// String names a value kind in error messages.
func (k vkind) String() string {
	switch k {
	case kNull:
		return "null"
	case kBool:
		return "boolean"
	case kNum:
		return "number"
	case kStr:
		return "string"
	case kArr:
		return "list"
	case kObj:
		return "object"
	}
	return "missing"
}
